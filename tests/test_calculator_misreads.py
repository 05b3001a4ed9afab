# ruff: noqa: E501 (a data table of real step strings)
"""Misreads: constructs the calculator used to read as false claims.

Each row of the first tables is a sentence or line of a MATH train solution (right as written)
that the calculator flagged `incorrect` before: it must not. Where the fix reads the construct
(a coefficient before \\sqrt, a mixed number, a factorial before "$"), a row also checks that a
real error in that construct is still caught. `benchmarks/calc_false_flags.py` counts these
over all of MATH and GSM8K train.

`COMPETITION` (issue 30): how competition solutions write equations they do not claim (tested
equations, alternatives, stages, lists, congruences, approximations), with the real slips of
the same shapes that must stay `incorrect`; `benchmarks/calc_first_flag.py` measures the
calculator's first flags against ProcessBench's human labels.
"""

import pytest

from tests.conftest import calc_statuses as verdicts
from verifiers.calculator.context import defines_star, mark_cuts, read_as_defined

C, W, U = "correct", "incorrect", "unverifiable"


ONE_STEP = [
    # letters glued to \sqrt / \pi / a fraction are factors, not units
    (
        "train/geometry/558",
        r"Then $\triangle ABC$ is a $30 - 60 - 90$ triangle, so $BC=AC\sqrt{3}=10\sqrt{3}$ and $AB=2AC=20$.",
        U,
    ),
    (
        "train/geometry/94",
        r"In the $30^\circ$-$60^\circ$-$90^\circ$ triangle $CFD$, $CD=FD\sqrt{3}=18-2\sqrt{3}$.",
        U,
    ),
    (
        "train/prealgebra/913",
        r"From $\triangle BOC$, we find $BC = BO/2 =2\sqrt{3}$ and $CO = BC\sqrt{3} =2\sqrt{3}\cdot\sqrt{3} = 6$.",
        C,
    ),
    ("train/intermediate_algebra/457", r"2006\pi=\pi ab=\pi a\sqrt{1003}.", U),
    (
        "train/geometry/6008",
        r"When we rotate around the leg of length $a$, the result is a cone of height $a$ and radius $b$, and so of volume $\frac 13 \pi ab^2 = 800\pi$.",
        U,
    ),
    (
        "train/geometry/6067",
        r"Using the formula $A = rs$ on $\triangle PQR$, $s = \frac{PQ + QR + RP}{2} = 180$ is the semiperimeter, and $A = \frac 12 bh = 5400$ is the area.",
        U,
    ),
    (
        "train/intermediate_algebra/844",
        r"\[\frac{2}{\frac{1}{a} + \frac{1}{b}} = \frac{2ab}{a + b} = \frac{3}{2},\]so $a + b = \frac{4}{3} ab = 4.$",
        U,
    ),
    ("train/geometry/883", r"which means that $DF = 2 QD = \boxed{8\sqrt{13}}$.", U),
    ("train/geometry/784", r"Similarly, $GQ = 4/AC = 4/5$ and $GR = 4/AB = 4/3$.", U),
    ("train/geometry/548", r"Thus, $[ADC] = \frac 34 [ABD] = \frac 34 \cdot 24 = \boxed{18}$.", C),
    # mixed numbers: read as whole + fraction when the fraction is proper
    (
        "train/algebra/1059",
        r"Karen drove 165 miles in $3\frac{40}{60}=3\frac{2}{3}=\frac{11}{3}$ hours, so her average speed was $\frac{165}{\frac{11}{3}}=3\cdot15=\boxed{45}$ miles per hour.",
        C,
    ),
    ("train/algebra/2640", r"We have $a = 1\frac{1}{2} = \frac{3}{2}$.", C),
    (
        "train/prealgebra/497",
        r"As a common fraction, $6\frac{1}{4}=\frac{24}{4}+\frac{1}{4}=\frac{25}{4}$.",
        C,
    ),
    (
        "train/prealgebra/1224",
        r"$$29\frac{5}{7}\div 2=29\frac{5}{7}\cdot\frac{1}{2}=\frac{208}{7}\cdot\frac{1}{2}=\frac{104}{7}=14\frac{6}{7}.$$",
        C,
    ),
    ("train/prealgebra/14", r"6 \cdot 8\frac{1}{3} &= 6 \cdot \left(8 + \frac{1}{3}\right)\\", C),
    ("mixed number, wrong", r"$6\frac{1}{4}=\frac{29}{4}$", W),
    (
        "train/geometry/6019",
        r"$2\sum\limits_{k=1}^{168} \frac{5(168-k)}{168}-5 =2\frac{(0+5)\cdot169}{2}-5 =168\cdot5 =\boxed{840}$.",
        C,
    ),
    (
        "train/counting_and_probability/702",
        r"$$ \frac{20}{3} = 6 \frac{2}{3} \qquad \qquad \frac{6}{3} = 2 $$ The largest power of 3 that divides $20!$ is $3^{(6 + 2)} = 3^8$.",
        C,
    ),
    # defined operations and function values
    (
        "train/algebra/2645",
        r"From the defined function, we know that $5\ast 2 = 3(5)+4(2)-(5)(2)=15+8-10=\boxed{13}$.",
        C,
    ),
    ("train/algebra/1542", r"We have $\&(12\&)=\&(7-12)=\&(-5)=(-5-7)=\boxed{-12}$.", C),
    (
        "train/algebra/2786",
        r"We have  \[\#(\#(\#58))=\#(\#(.5(58)+1))=\#(\#(30))=\]\[\#(.5(30)+1)=\#(16)=(.5(16)+1)=\boxed{9}.\]",
        C,
    ),
    (
        "train/precalculus/897",
        r"\[(3 \operatorname{cis} 18^\circ)(-2\operatorname{cis} 37^\circ) = (3)(-2) \operatorname{cis}(18^\circ + 37^\circ) = -6 \operatorname{cis} 55^\circ.\]",
        U,
    ),
    (
        "train/prealgebra/107",
        r"$$\text{lcm}(100,120) = 2^3\times 3\times 5^2 = 8\times 3\times 25 = 24\times 25 = 600.$$",
        C,
    ),
    # radians and degrees
    (
        "train/precalculus/313",
        r"\[\frac{9 \pi}{4} = \frac{180^\circ}{\pi} \cdot \frac{9 \pi}{4} = 405^\circ.\]",
        C,
    ),
    (
        "train/precalculus/1196",
        r"\[-\frac{\pi}{2} = \frac{180^\circ}{\pi} \cdot \left( -\frac{\pi}{2} \right) = -90^\circ.\]Then $\sin (-90^\circ) = -\sin 90^\circ = \boxed{-1}.$",
        C,
    ),
    (
        "train/precalculus/939",
        r"\[x = 36^\circ k - 18^\circ.\]The only acute angles of this form are $18^\circ$ and $54^\circ.$",
        U,
    ),
    # factorials written before "$" or a comma
    (
        "train/counting_and_probability/76",
        r"This suggests that there are $6\cdot 5\cdot 4\cdot 3\cdot 2\cdot 1 = 6!$ ways to seat the six people.",
        C,
    ),
    (
        "train/counting_and_probability/76",
        r"Therefore, for each group of 6 people, there are $6!/6 = 5!$ ways to seat them around the table.",
        C,
    ),
    ("train/number_theory/1259", r"Note that $6!=6\cdot5!$.", C),
    ("factorial, wrong", r"Note that $6!=5\cdot5!$.", W),
    # repeating decimals, LaTeX powers, ratios, separate displays
    (
        "train/prealgebra/507",
        r"We then have $1000x = 4054.\overline{054}$, so $$ 1000x - x = 4054.\overline{054} - 4.\overline{054} = 4050 \ \ \Rightarrow \ \ x = \frac{4050}{999} = \boxed{\frac{150}{37}}.",
        C,
    ),
    (
        "train/geometry/689",
        r"The first jar has a volume of $V=\pi r^2h=\pi(\frac{3}{2})^24=9\pi$.",
        U,
    ),
    ("train/number_theory/7019", r"The prime factorization of $75 = 3^15^2 = (2+1)(4+1)(4+1)$.", U),
    (
        "train/prealgebra/732",
        r"We multiply each part of the ratio $1:2:7$ by 20 to make Amanda's part equal 20, and we have \[1:2:7 = 1\cdot 20:2\cdot 20 :7\cdot 20 = 20:40:140.\]",
        U,
    ),
    ("train/prealgebra/1887", r"$$AD^2=8^2+15^2=289=17^2$$ $$AD=\boxed{17}$$", C),
    (
        "train/prealgebra/1963",
        r"Converting this to gallons, we have $$(1152 \text{ ft}^3)\cdot(7.5 \text { gallons/ft}^3)=8640 \text{ gallons}.$$",
        C,
    ),
    (
        "train/precalculus/1169",
        r"For example, $a = b = \frac{2 \pi}{3}$ leads to $xy = 3,$ and $a = b = \frac{4 \pi}{3}$ leads to $xy = -3.$",
        U,
    ),
    (
        "train/intermediate_algebra/1725",
        r"Note that $a = 40,$ $b = 42,$ $c = 45,$ and $d = 48$ satisfy $abcd = 10!,$ and $a + b + c + d = \boxed{175},$ so this is the minimum.",
        U,
    ),
    # equations that are cases, not steps of solving
    ("train/algebra/1083", r"If $|x-7| = |x+1|$, then either $x-7 = x+1$ or $x-7 = -(x+1)$.", U),
    (
        "train/number_theory/1116",
        r"The positive odd divisors of 20 are 1 and 5, so we solve $2n-1=-5$, $2n-1=-1$, $2n-1=1$, and $2n-1=5$ to find the solutions $n=-2$, $n=0$, $n=1$, and $n=3$.",
        U,
    ),
    (
        "train/counting_and_probability/5009",
        r"We also know $P(0) = 1$, so we can quickly compute $P(1)=0$, $P(2) = \frac 13$, $P(3) = \frac29$, $P(4) = \frac7{27}$.",
        U,
    ),
    (
        "train/counting_and_probability/5088",
        r"\begin{align*} P(5) &= 1 \\ P(6) &= 9 \\ P(7) &= 19 \\ P(8) &= 31 \end{align*}",
        U,
    ),
    (
        "train/intermediate_algebra/1444",
        r"$$Q(2)=42, \quad Q(4)=-70, \quad Q(6)=42, \quad Q(8)=-6.$$",
        U,
    ),
    # "\quad" separates formulas; "remainder" before a signed number is no unit (omnimath-676)
    (
        "processbench omnimath-676",
        r"We reduce \(-161\) modulo 13: \[ -161 \div 13 = -12 \text{ remainder } -5 \quad \text{(or equivalently, } 8 \text{)} \]",
        U,
    ),
    # still an error: a coefficient before \sqrt is read, not dropped
    ("coefficient, wrong", r"so $CO = 2\sqrt{3}\cdot\sqrt{3} = 5$.", W),
]


@pytest.mark.parametrize(("source", "text", "expected"), ONE_STEP, ids=[r[0] for r in ONE_STEP])
def test_math_sentence(calc, source, text, expected):
    assert verdicts(calc, [text])[0] == expected, source


def test_defined_star_operation(calc):
    question = r"If $a*b=a^2+ab-b^2$, find $3*2$."
    step = r"We have: $3*2=3^2+3\cdot 2-2^2=9+6-4=\boxed{11}$."
    assert defines_star(question) and not defines_star("Tom buys 3 * 2 = 6 apples.")
    assert verdicts(calc, [step], question) == [C]  # 9+6-4=11 still checked
    assert verdicts(calc, [step]) == [W]  # without the definition, `*` is a product
    assert read_as_defined("**Step 1** 3*2") == "**Step 1** 3 mathop 2"


# A line split cuts an expression: the sides at the cut are fragments.
CUTS = [
    (  # train/counting_and_probability/1032: the line ends with \cdot
        [
            r"If a sequence contains no more than one 0, there are $7\cdot 6\cdot",
            r"5\cdot 4\cdot 3 = 2520$ sequences formed from the characters A, I, M, E, 2, 0, and 7.",
        ],
        [U, U],
    ),
    (  # train/prealgebra/15: the next line opens with "- 4"
        [r"So the perimeter of the T is $2(12) - 2(2) = 24", r"- 4 = \boxed{20}$ inches."],
        [U, U],
    ),
    (  # train/geometry/314: the line ends with "+"
        [
            r"\frac{180^{\circ}-140^{\circ}}{2}+",
            r"\frac{180^{\circ}-120^{\circ}}{2}=\boxed{50^{\circ}}.",
        ],
        [U, U],
    ),
    (  # train/intermediate_algebra/1229: the line ends with \log_{2002}
        [
            r"14} = \log_{2002} \frac{1}{11 \cdot 13 \cdot 14} = \log_{2002}",
            r"\frac{1}{2002} = \boxed{-1}.",
        ],
        [U, U],
    ),
    (  # train/prealgebra/1051: an align row goes on with "&\qquad+"
        [
            r"80+79&+81+85+87+89+87 \\&= 80 +(80-1) + (80+1) + (80+5) \\",
            r"&\qquad+ (80+7)+(80+9)+(80+7)\\",
            r"&=7\cdot 80 + (-1+1+5+7+9+7)\\",
        ],
        [U, U, U],
    ),
]


@pytest.mark.parametrize(("steps", "expected"), CUTS)
def test_cut_expressions(calc, steps, expected):
    assert verdicts(calc, steps) == expected


def test_row_going_on_inside_one_step(calc):
    step = "80+79&+81+85+87+89+87 \\\\&= 80 +(80-1) + (80+1) + (80+5) \\\\\n&\\qquad+ (80+7)+(80+9)+(80+7)\\\\"
    assert verdicts(calc, [step]) == [U]


def test_mark_cuts_leaves_whole_sentences_alone():
    steps = ["3 + 4 = 7.", "- 5 + 2 = 7", "**Step 2**", "6 * 2 = 12"]
    assert mark_cuts(steps) == steps
    assert mark_cuts(["a = 7\\cdot", "5 = 35"]) == ["a = 7\\cdot", "… 5 = 35"]


# What the fixes must not cost: claims they once hid by mistake (GSM8K and MATH train).
KEPT = [
    (["Day 4:2(50+100+120)=540"], [C]),  # a plain-text label, not the ratio 4:2
    (
        [
            r"The $200$ numbers sum up to $10{,}000$, so their average is $\frac{10{,}000}{200} = 50$."
        ],
        [C],
    ),
    (
        [
            r"Since $\overline{AC}$ has length $11$, $\overline{EC}$ must have length $\dfrac{1}{3} \cdot 11 = \boxed{\dfrac{11}{3}}$."
        ],
        [C],
    ),
    (
        [r"We get \[", r"6 \div 3 - 2 - 8 + 2 \cdot 8 = 2 - 2 - 8 + 16."],
        [U, C],
    ),  # "\[" cuts nothing
    ([r"-4a-8&=a+2\\", r"-10&=5a\\"], [U, C]),  # a new align row, not a continuation
]


@pytest.mark.parametrize(("steps", "expected"), KEPT)
def test_claims_kept(calc, steps, expected):
    assert verdicts(calc, steps) == expected


# Competition-math writing (issue 30): equations a solution tests, alternatives, stages, lists,
# congruences and approximations. Rows are ProcessBench dev steps ("processbench <id> #<step>"),
# MATH train sentences, the held-out chains quoted in issue 30, and "family:" rows written in
# the style of model chains. Real slips of the same shapes stay `incorrect`.
COMPETITION = [
    # tested equations: the text itself rejects them, asks them, or shows the true value against them
    ("issue 30 (quoted)", r"Substituting $a = 1$, $c = 2$ we get $2 + 8 = 4$, i.e. $10 = 4$, which is false.", U),
    ("issue 30 (quoted; the chain says it fails)", r"For $n = 15$: $0 + (15 - 1) \cdot 71 = 999$, which simplifies to $14 \cdot 71 = 994$, which is not $999$.", C),
    ("processbench olympiadbench-182 #7", "Eighth, test small values:\n- Test \\( n = 2999 \\):\n\\[ n + 2019 = 2999 + 2019 = 5018 \\]\n\\[ S(2999) = 2 + 9 + 9 + 9 = 29 \\]\n\\[ S(5018) = 5 + 0 + 1 + 8 = 14 \\]\nCheck the condition:\n\\[ 29 = 5 \\times 14 \\]\n\\[ 29 \\neq 70 \\]", C),
    ("processbench olympiadbench-182 #10", "Ninth, correct solution:\n- Test \\( n = 1998 \\):\n\\[ n + 2019 = 1998 + 2019 = 4017 \\]\n\\[ S(1998) = 1 + 9 + 9 + 8 = 27 \\]\n\\[ S(4017) = 4 + 0 + 1 + 7 = 12 \\]\nCheck the condition:\n\\[ 27 = 5 \\times 12 \\]\n\\[ 27 = 60 \\]\nThus, the correct value is:\n\\[ \\boxed{1998} \\]", C),
    ("train/prealgebra/655", r"However, $-12 \cdot 9$ is less than $-100$, so $$-100 = -12 \cdot 9 + 11$$would not help.", U),
    ("family: compared with its worked-out value", "\\[ 0 + (15 - 1) \\cdot 71 = 999 \\]\n\\[ 994 < 999 \\]", U),
    ("family: simplified, then compared", r"For \(n = 15\): \(2(7) + 3(5) = 30\), which simplifies to \(14 + 15 = 29\), so this fails.", C),
    ("family: a question", r"Is \(2^3 + 1 = 10\)? No.", U),
    ("family: checked whether", r"We check whether \(3^2 + 4^2 = 26\). Since \(9 + 16 = 25\), this is not correct.", C),
    ("family: rejected in words", r"Then \( 5 \cdot 9 = 40 \), which is not correct.", U),
    ("family: an identity rejected", r"Then \(x - 1 = x + 1\), which is false.", U),
    ("family: an identity asked", r"This gives \(a + 4 = a + 6\)? That can't be.", U),
    ("family: an identity simplified wrong", r"So \(x + 69 - 25 = x + 45\).", W),
    # real slips in trials: the claimed value is meant ("-68, not 0", "this is correct", "exceeds 196")
    ("processbench olympiadbench-998 #2", "- For \\(x = 1\\), we get \\(1 - 8 - 8 - 9 = -24\\), not 0.\n- For \\(x = -1\\), we get \\(-1 - 8 + 8 - 9 = -10\\), not 0.\n- For \\(x = 3\\), we get \\(27 - 72 - 24 - 9 = -68\\), not 0.\n- For \\(x = -3\\), we get \\(-27 - 72 + 24 - 9 = -84\\), not 0.\n- For \\(x = 9\\), we get \\(729 - 720 - 72 - 9 = 729 - 729 = 0\\), this checks out.", W),
    ("processbench omnimath-7 #0", r"To solve for \( f(1998) \), we need to follow the given conditions and properties of the function \( f \). Let's break it down step by step. First, we check if 1998 is a perfect number. A number \( p \) is perfect if the sum of its divisors (excluding \( p \)) equals \( p \). The divisors of 1998 are: \[ 1, 2, 3, 6, 9, 18, 27, 37, 54, 74, 111, 222, 333, 666, 1998 \] Sum of the divisors (excluding 1998): \[ 1 + 2 + 3 + 6 + 9 + 18 + 27 + 37 + 54 + 74 + 111 + 222 + 333 + 666 = 1998 \] Since the sum of the divisors (excluding 1998) is not equal to 1998, 1998 is not a perfect number.", W),
    ("processbench omnimath-767 #5", r"We test some integer values of \(c\): For \(c = 12\): \[ 12^3 + 3 \cdot 12^2 + 1 = 1728 + 432 + 1 = 2017 \] This is correct, so \(c = 12\).", W),
    ("processbench omnimath-341 #11", r"Finally, we check \(14^2 = 196\). We find that \(101*2 + 20*2 = 222\), which exceeds 196. No solution here.", W),
    ("processbench math-542 #3", r"The next step is to find the correct \(k\) that results in \(x\) being within the specified range. To ensure \(x\) is within the range [1, 100], we test decreasing values of \(k\): First, for \(k = 68\): \[x = 5050 - 77 \times 68 = 5050 - 5256 = -206\] This does not satisfy our condition since \(x\) must be positive. Second, for \(k = 67\): \[x = 5050 - 77 \times 67 = 5050 - 5159 = -109\] Again, this does not meet the criteria.", W),
    ("processbench math-6 #6", "4. For the constant term, we have \\(\\frac{45}{2}c = 8\\). Substituting \\(c = \\frac{5}{6}\\) into this equation:\n\\[ \\frac{45}{2} \\cdot \\frac{5}{6} = 8 \\]\n\\[ \\frac{225}{12} = 8 \\]\nSimplifying this:\n\\[ \\frac{225}{12} = \\frac{96}{12} \\]\nThis confirms that the constant term also aligns correctly with the given polynomial.", W),
    ("family: a slip that denies the true value", r"Then \(4 + 5 = 10\), not 9.", W),
    ("family: a slip after 'whether'", r"To see whether 21 is prime, we compute \(3 \times 7 = 22\).", W),
    ("family: a slip before a question", r"We have \(3 \times 7 = 22\), so how many are left?", W),
    ("family: a slip compared with a target", r"We get \(4 + 5 = 10\). Since \(10 > 9\), it works.", W),
    ("family: a slip restated, not rejected", r"We get \(2(7) + 3(5) = 30\), that is \(14 + 15 = 29\). So the total is 29.", W),
    ("issue 30 (quoted slip)", r"\(1404 = 2^2 \cdot 3^2 \cdot 13\)", W),
    ("issue 30 (quoted slip)", r"\[ 6084 \times 6084 = 36,997,536 \]", W),
    # alternatives, "±", and formulas side by side
    ("issue 30 (quoted)", r"So $x = 2 - 8 = -6$ or $x = -2 - 8 = -10$.", C),
    ("issue 30, as two inline formulas", r"\(x = 2 - 8 = -6\) \(x = -2 - 8 = -10\)", C),
    ("processbench olympiadbench-232 #3", r"Now, let's solve this quadratic equation for AC. Using the quadratic formula: AC = (-b ± √(b^2 - 4ac)) / 2a. In this case, a = 1, b = -34, and c = -222. Therefore, AC = (34 ± √((-34)^2 - 4(1)(-222))) / (2*1). This simplifies to AC = (34 ± √(1156 + 888)) / 2, which further simplifies to AC = (34 ± √2044) / 2. Thus, AC = (34 ± 45.26) / 2. Considering the positive solution: AC = (34 + 45.26) / 2 ≈ 39.63.", C),
    ("family: ± as a character", r"\[ x = -4 ± 12 / 2 = 4 \text{ or } -8 \]", U),
    # a computation in stages across display lines; a stage nothing takes up again is a slip
    ("issue 30 (quoted)", "\\[ \\text{Total} = 720 \\times 24 \\times 120 \\times 6 \\]\n\\[ \\text{Total} = 720 \\times 24 = 17280 \\]\n\\[ 17280 \\times 120 = 2073600 \\]\n\\[ 2073600 \\times 6 = 12441600 \\]", C),
    ("family: a stage nothing takes up", "\\[ \\text{Total} = 720 \\times 24 \\times 120 \\times 6 \\]\n\\[ \\text{Total} = 720 \\times 24 \\times 120 = 2073600 \\]", W),
    ("family: staged factors", "\\[ N = 2^3 \\cdot 3^2 \\cdot 5 \\]\n\\[ N = 8 \\cdot 9 = 72 \\]\n\\[ 72 \\cdot 5 = 360 \\]", C),
    # lists run into one line
    ("issue 30 (quoted)", "The values are:\n- x = -15 - x = -12 - x = -9", U),
    ("family: bullets between inline formulas", r"- \(x = -15\) - \(x = -12\) - \(x = -9\)", U),
    ("processbench math-463 #4", r"Let's consider \(n = 5k + 1\) and find a specific example that meets our criteria. If \(k = 5\), then \(n = 5(5) + 1 = 26\). Thus: - \(n = 26\) - \(k = 5\) Now, compute \(\gcd(n, k)\) and \(\text{lcm}(n, k)\): - \(\gcd(26, 5) = 1\) because 26 and 5 are coprime (they share no common divisors other than 1). - \(\text{lcm}(26, 5) = 26 \times 5 / \gcd(26, 5) = 130 / 1 = 130\) Thus, the ratio becomes: \[ \frac{\text{lcm}(n,k)}{\gcd(n,k)} = \frac{130}{1} = 130 \]", C),
    ("family: a listed substitution", r"\(a = 1, b = 2\): \(1 + 2 = 3\) \(a = 2, b = 3\): \(2 + 3 = 5\)", C),
    # congruences written with "=": read when the chain ends with (mod m) or goes on with ≡
    ("processbench math-484 #4", r"Calculate \(4^4 \mod 17\): \[4^2 = 16 \equiv -1 \pmod{17},\] \[4^4 = (4^2)^2 = (-1)^2 = 1 \pmod{17}.\] So, \[225^{66} \equiv 1 \pmod{17}.\]", C),
    ("processbench omnimath-280 #3", "So, we need to find \\(7^5 \\mod 11\\):\n\\[ 7^2 = 49 \\equiv 5 \\pmod{11} \\]\n\\[ 7^4 = (7^2)^2 = 5^2 = 25 \\equiv 3 \\pmod{11} \\]\n\\[ 7^5 = 7^4 \\cdot 7 = 3 \\cdot 7 = 21 \\equiv 10 \\pmod{11} \\]", C),
    ("processbench olympiadbench-417 #5", r"We can simplify further by finding the pattern of powers of -36. First, \( (-36)^2 = 1296 \equiv 96 \mod 100 \). Next, \( (-36)^4 = 96^2 \equiv 96 \mod 100 \). Then, \( (-36)^8 = 96^2 \equiv 96 \mod 100 \). Following this, \( (-36)^{16} = 96^2 \equiv 96 \mod 100 \). Finally, \( (-36)^{32} = 96^2 \equiv 96 \mod 100 \). Therefore, \( (-36)^{34} = (-36)^{32} \times (-36)^2 = 96 \times (-36) = -3456 \equiv 64 \mod 100 \).", W),
    ("processbench omnimath-280 #2", r"The exponent \(5^{3^{2^1}} = 5^8\) is what we need to reduce modulo 10. Since \(5^2 = 25 \equiv 5 \pmod{10}\), we have \(5^4 \equiv 5^2 \equiv 5 \pmod{10}\), and thus \(5^8 \equiv 5^4 \equiv 5 \pmod{10}\).", W),
    # notation: "!5" is a subfactorial (derangements), not the number 5
    ("family: subfactorial", r"The number of derangements is \(!5 \times 6 = 264\).", U),
    ("family: a factorial still read", r"So \(5! \times 6 = 620\).", W),
    # approximations the step states or announces; a slip as precise as the truth stays one
    ("family: pi taken as 3.14", r"Using \(\pi \approx 3.14\), the circumference is \(2\pi(7) = 43.96\).", U),
    ("family: a root the step approximates", r"Since \(\sqrt{2} \approx 1.41\), we get \(\sqrt{2} \cdot 7 = 9.87\).", C),
    ("family: rounding the step announces", r"Each share is about \(1000 / 3 \approx 333\). Then \(3 \times 333 = 1000\) in total.", C),
    ("processbench omnimath-87 #3", "Now, let's consider the combined volume. We're given that the combined volume of the water in both containers is \\(80 \\, \\text{cm}^3\\). This means:\n\\[V_1 + V_2 = 80 \\, \\text{cm}^3\\]\nSubstituting the values we found:\n\\[80 + 10\\pi \\, \\text{cm}^3 = 80 \\, \\text{cm}^3\\]\nSince we know \\(10\\pi\\) is slightly more than \\(31 \\, \\text{cm}^3\\) (since \\(\\pi \\approx 3.14\\)), this confirms our setup is correct as it aligns with the given combined volume.", W),
    ("family: a precise slip in a step that rounds", r"So \(\sqrt{2} \approx 1.41\). Also \(4194304 - 2048 - 11 = 4192255\).", W),
]


@pytest.mark.parametrize(("source", "text", "expected"), COMPETITION, ids=[r[0] for r in COMPETITION])
def test_competition_writing(calc, source, text, expected):
    verdict = calc.check_steps([text])[0]
    assert str(verdict.status) == expected, f"{source}: {verdict.evidence}"


STAGED_ACROSS_STEPS = [
    # issue 30's product shown in stages, split into steps: the first stage restated, then taken up
    (["Total = 720 × 24 × 120 × 6", "Total = 17280, then 17280 × 120 = 2073600 and 2073600 × 6 = 12441600."], [U, C]),
    # the same total restated wrong, with nothing taken up again: a slip
    (["Total = 720 × 24 × 120 × 6", "Total = 17280."], [U, W]),
]


@pytest.mark.parametrize(("steps", "expected"), STAGED_ACROSS_STEPS)
def test_stages_across_steps(calc, steps, expected):
    assert verdicts(calc, steps) == expected


def test_a_trial_of_a_target_is_excused_only_when_the_target_was_written_before(calc):
    # "a contradiction" rejects the trial, not the equation: the claimed 4 must be a target
    step = r"If \(a = 1\) and \(c = 2\), then \(2 + 8 = 4\), a contradiction."
    assert verdicts(calc, [step], r"Find all \(a, c\) with \(a + 4c = 4\).") == [U]
    assert verdicts(calc, [step], r"Find all \(a, c\) with \(a + 5c = 11\).") == [W]
