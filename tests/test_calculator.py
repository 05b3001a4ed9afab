"""Calculator source: each trap of the issue, the timeout path, and the verifier contract.

Step strings here are short excerpts of real chains (ProcessBench dev, GSM8K train) or
minimal forms of a trap; the large regression table lives in test_calculator_rows.py.
"""

import time

import pytest

from labeling.schema import Chain, Problem, Status
from verifiers.calculator.verifier import CalcConfig, CalculatorVerifier
from verifiers.killable import CheckTimeoutError, KillableWorker

C, W, U = "correct", "incorrect", "unverifiable"


def status(calc, text, question=""):
    return str(calc.check_steps([text], question)[0].status)


TRAPS = [
    # plain and LaTeX chains
    ("Natalia sold 48/2 = <<48/2=24>>24 clips in May.", C),
    (r"he killed \(3 \times 15 = 45\) wolves today", C),
    (r"\[ \frac{3}{4}\cdot 8 = 6 \]", C),
    (r"\[ 17 \times 23 = 391 \]", C),
    ("Now, we sum: \\[ 50 + 70 + 140 + 240 = 400 \\]", W),
    ("194 = 11 × 17 + 9.", W),
    # implicit multiplication
    (r"Stan has caught \( 4x - 13 = 4(40) - 13 = 157 \) Pokémon.", W),
    (r"\( 4(40) - 13 = 147 \)", C),
    # rounding the step announces or shows
    ("8 ÷ 3 = 2.67 (round up to 3)", U),  # the bracket may continue the expression
    ("8 ÷ 3 = 2.67, so we round up to 3 masks.", C),
    ("1/3 = 0.33", C),
    ("That is about 1000/3 = 333 cars.", C),
    (r"\sqrt{2} \approx 1.41", C),
    ("So 22/7 ≈ 3", C),
    # an announced approximation holds only as the true value rounded or cut at its last digit
    (r"\sqrt{2} \approx 1.52", U),  # 1.414...: no rounding of it, yet "≈" may be loose
    ("So 2^10 ≈ 1000 and 1990 * 0.30103 ≈ 600.", C),  # trailing zeros make a rounder number
    ("So 2^10 ≈ 2000.", W),  # "≈" is no licence to be a tenth off
    (r"So \(\sqrt{220} \approx 11\).", W),
    ("So 1000/3 ≈ 350.", U),  # 5% off: a loose estimate, no claim either way
    (r"So $0.764^{34} \approx 1.928 \times 10^{-7}$.", W),  # not 'rounded to 3 decimals'
    (r"So $(0.5)^{20} \approx 0$.", C),
    ("2.5 × 4 ≈ 10.3", U),  # 2.5 may be a rounded value: 10.3 is within its drift
    ("18.75 + 21.43 ≈ 40.17", C),  # within the rounding of the decimals written
    # nothing rounds an exact value the claim could write in full, beyond its inputs' drift
    ("18.75 + 21.43 ≈ 39.18", W),
    (r"$\frac{59049}{729} \approx 80.83$", W),
    ("So 199 × 3.14159 ≈ 624.82.", W),  # digits shown: meant to the last one; true 625.18
    ("So 1.414 × 1000 ≈ 1414.2", U),  # within the drift of 1.414 rounded
    ("n < 9985/22 ≈ 453.85", U),  # 453.8636: two units of slack for a value rounded twice
    ("So (-2.302585)/(0.693147) ≈ 3.321928.", W),  # the sign lost
    # a root typed as a character is a root: `√2 * 5` was read as `2 * 5`
    ("The diagonal is √2 * 5 = 7.07 cm.", C),
    ("So √3 / 4 * 16 = 6.93.", C),
    ("So √16 = 5.", W),
    ("Simplify: √18 = 3√3.", W),
    ("Simplify: √18 = 3√2.", C),
    ("Distance = √((2 + 3)² + (-12)²) = √169 = 14.", W),
    (r"So √\frac{1}{4} = 3.", U),  # no number, letter or bracket after the sign: unread
    ("So √(1 + (2) = 7.", U),  # a bracket never closed
    (r"So \sqrt{16} = 5.", W),  # a word of prose before a root multiplies nothing
    (r"So ab\sqrt{2} = 5.", U),  # letters before it may: unread
    # other characters typed for math are spelled out, never dropped (`typed_symbols`)
    ("So ∛27 × 2 = 6.", U),  # was read as 27 × 2; a cube root outside LaTeX is not read
    ("So 1⁄2 × 10 = 5.", C),  # the fraction slash: was read as 2 × 10
    ("So 1⁄2 × 10 = 6.", W),
    ("there are ¼ * 24 = 6 action figures.", C),
    ("So 2½ × 2 = 5.", C),  # a mixed number
    ("So 2½ × 2 = 4.", W),
    ("So x = 3.5½ = 4.", U),  # glued to a decimal: a fragment
    ("So 2¹⁰ = 1000.", W),
    ("So 10⁻¹ × 50 = 5.", C),
    ("We have ‐3 + 5 = 2.", C),  # a hyphen typed for the minus: was read as 3 + 5
    # a degree sign typed inside LaTeX is `^\circ`
    (r"So \(\cos(60°) = 0.5\).", C),
    (r"So \(\sin 30° = \frac{\sqrt{3}}{2}\).", W),
    ("Angles from 4° to 176° in steps of 4° give 44 angles.", U),  # prose: a range, no claim
    # clock times count on a dial, and a dash between two of them is a range
    ("He starts at 11am + 3 hours = 2pm.", U),
    ("The shop is open 8am–6pm = 10 hours.", U),
    ("At 3pm, he had 4 + 5 = 10 apples.", W),  # a time elsewhere in the step excuses nothing
    ("From page 10 - 20 = 11 pages.", U),  # a range counted: the dash reads "to"
    ("So 5 - 10 = 5.", W),  # a sign lost is no count
    # a minus before a power of a number may be the base's sign, a tower grouped from the left
    ("Then x = -3, so x^2 = -3^2 = 9.", C),
    ("Then x = -3, so x^2 = -3^2 = 8.", W),
    ("Then -3^2 = 9.", U),  # -9 as parsed, 9 as meant: no claim either way
    ("Then -3^2 = -9.", C),
    ("So 2^3^2 = 64.", U),
    ("So 2^3^2 = 60.", W),
    (r"So \(-2^{3} + 10 = 18\).", W),  # 2 either way
    # a rounding carried from an earlier value: only what the numbers shown, each off by less
    # than a unit of its last digit, can give; the problem's numbers (and a percent's 1 - p,
    # 1 + p) are exact
    (r"they made $17.714 \cdot 4 = \boxed{71.456}$ dollars.", W, "each jar sold at $4"),
    (r"they made $17.714 \cdot 4 = 70.86$ dollars.", C, "each jar sold at $4"),
    ("So 17.71 × 4 = 70.86 dollars.", U, "each jar sold at $4"),  # 17.714 carried: 70.856
    ("The coat costs 0.85 × 120 = 101 dollars.", W, "A 15% discount on a $120 coat."),
    ("The coat costs 0.85 × 120 = 102 dollars.", C, "A 15% discount on a $120 coat."),
    ("The coat costs 0.85 × 120 = 101 dollars.", U),  # 0.85 may be a rounded value
    ("So 1.41 × 1000 = 1414.", U),  # the square root of 2, rounded and carried
    (r"\[ 0.971 \times 1.089 = 1.056519 \]", W, "It fell by 2.9% and then rose by 8.9%."),
    (r"\[ 0.971 \times 1.089 = 1.057419 \]", C, "It fell by 2.9% and then rose by 8.9%."),
    # the digits of a quotient tried for wholeness only show that it is not whole
    (r"Then \(1999 \div 31 \approx 64.1613\), which is not an integer.", U),
    (r"Then \(1998 \div 37 \approx 54.1613\), which is not an integer.", W),  # it is: 54
    (r"$\frac{59049}{729} \approx 81$", C),
    ("Each gets 1000/3 = 333 cars.", U),  # a whole number within 1: items are not split
    # the relation in words between two numbers, and a list run into one line
    ("He is 692 because 99.1 plus 98.2 plus 98.7 equals 296.", C),
    ("He is 692 because 99.1 plus 98.2 plus 98.7 equals 295.", W),
    ("Since 3/4 is equal to $15, then 1/4 is equal to $15/3 = $5.", C),  # a part, not 0.75
    (r"We get: - \(8 \times 10^{5}\) is equal to \(8,000,000\). - \(9 \times 10 = 90\).", W),
    (r"We get: - \(8 \times 10^{5}\) is equal to \(800,000\). - \(9 \times 10 = 90\).", C),
    # whole numbers: rounded to the nearest or cut, raised only where whole items are counted
    (r"\( y = \frac{1}{5 - \frac{5}{2}} = \frac{1}{\frac{5}{2}} = 1 \)", W),  # 0.4 is not 1
    ("We need 17/5 = 4 boxes.", U),
    ("So -161/13 = -12 remainder 5", U),
    # last digits, ratios and conversion factors: what "=" joins is not a quotient's value
    (r"For the units digit, $7 \cdot 3 = 1$, so $n$ ends in 3.", U),
    (r"For the units digit, $7 \cdot 8 = 4$.", W),
    (r"The ratio of $A$ to $B$ is $1:(3+1) = 1:4$.", U),
    (r"The conversion factor is $\frac{7\text{ knicks}}{2\text{ knacks}} = 1$.", U),
    (r"So $\frac{60\text{ miles}}{2} = 20$.", W),
    # a count of choices written C(n, k) or nCk; a point C(3, 1) or a C the text defines is not
    (r"\[C(52, 5) = \frac{6497400}{120}\]", W),
    ("So C(8, 3) = 56 ways.", C),
    ("first pair in 8C2 = 27 ways", W),
    ("The vertex C(3, 1) = 4 units away.", U),
    ("Let C(m, n) count the paths; C(3, 1) = 4.", U),
    # restated intermediates and running totals
    ("12 + 0.5 × 12 = 12 + 6 = 18 pounds", C),
    ("3 * 4 = 12 + 5 = 17", C),
    # unit conversions and labels
    ("Time spent writing: \\(4 \\text{ hours} = 4 \\times 60 = 240 \\text{ minutes}\\)", C),
    ("2 hours + 30 minutes = 150 minutes", U),
    ("On Monday: 5 pairs = 5 * 2 = 10 shoes", C),
    ("Step 2: 5 + 3 = 8", C),
    ("From 8:00 to 11:00 = 3 hours", U),
    ("1. 3 + 4 = 7", C),
    ("- 5 + 3 = 8 apples in total", C),
    # percent vs fraction
    ("Increase = 20% of $24 = 0.20 × $24 = $4.80.", C),
    ("The ratio is 3/4 = 75", U),
    ("The new price is 24 + 20% = 28.8", U),
    ("The share is 3/10 = 1.", W),  # a whole 1 is no percent of 0.3, nor its rounding
    # money and thousands separators
    ("3 plates × $6.00/plate = $18.00.", C),
    ("The total is $1,200 + $350 = $1,550.", C),
    ("10,000 - 6,000 = 4,000 feet", C),
    # a claim copied from the problem statement
    ("As given, 2 + 2 = 5 in this puzzle.", U, "In this puzzle 2 + 2 = 5. What is 3 + 3?"),
    # fragments: the number belongs to a larger expression we cannot read
    ("half of 20 + 4 = 14", U),
    # a bound is no operation: its arithmetic is claimed (omnimath-341's `= 2007`, true 1998)
    (r"since \(S\) is at most \(101*18 + 20*9 = 2007\)", W),
    ("He can work at most 3 * 4 = 12 hours.", C),
    (r"\[ 36 = 50 - 50 \cos \angle PXS \]", U),
    (r"\[ 2ab = 75 \times 5400 \]", U),
    # bars are an absolute value (`worked_values`), never brackets: `100 - 144 = 44` is false
    (r"\[ \left| 100 - 144 \right| = 44 \]", C),
    (r"\[ \left| 100 - 144 \right| = -44 \]", W),
    ("2 3/4 = 2.75", U),
    # a trig value in degrees is read whole (the cosine of 60 degrees), never `60 = 1/2`
    (r"\( \cos 60^\circ = \frac{1}{2} \)", C),
    (r"\( \cos 60^\circ = \frac{\sqrt{3}}{2} \)", W),
    # an environment's name is no factor: the star of `align*` made the row's number a fragment
    (r"\[ \begin{align*} 7 \times 8 &= 57 \end{align*} \]", W),
    (r"\begin{equation*} 7 \times 8 = 56 \end{equation*}", C),
    (r"\[ \begin{vmatrix} 2 & 3 \\ 1 & 4 \end{vmatrix} = 6 \]", U),  # a determinant: unread
    (r"\[ \begin{array}{c} 12 \\ \times 3 \\ \hline 36 \end{array} \]", U),
    # a number a copula ends after "of" is the subject's, the side after it is whole
    ("The sum of the digits of 1521 is 1 + 5 + 2 + 1 = 10.", W),
    (r"The sum of the digits of 1521 is \( 1 + 5 + 2 + 1 = 9 \).", C),
    ("The digits sum to 1 + 5 + 2 + 1 = 10.", W),  # "sum to" introduces a result
    ("Half of 12 + 4 = 10.", U),
    ("Half of 12 is 6 + 4 = 10.", C),
    # ...but the article after "of" (read as a letter) opens a phrase nothing after is read in
    (r"The interior angles of a 14-gon sum is $180^\circ(14-2)=\boxed{2160}$ degrees.", U),
    ("One third of 3 hours 20 minutes = 200 minutes.", U),
    # a norm's bars hold what no reader reads: `12 = \frac{1}{2}` is no claim
    (r"\[ 12 = \frac{1}{2} \| \vec{u} \times \vec{v} \| \]", U),
    ("\\[ 12 = \\frac{1}{2} ‖ \\vec{u} \\times \\vec{v} ‖ \\]", U),
    # an equation's number is no part of it
    (r"\[ 7 \times 8 = 57 \tag{2} \]", W),
    # thousands grouped as LaTeX writes them are one number; a decimal comma is not read
    (r"We know that $9! = 362{,}880$ is divisible by $9$.", C),
    (r"Notice that 125 is a factor of \(78{,}125\).", C),
    (r"$1{,}000 \times 3 = 3{,}001$", W),
    (r"$1\,000 + 2\,500 = 3\,600$", W),
    (r"\[ (x + 1{,}000)^2 = x^2 + 2{,}000x + 100{,}000 \]", W),
    (r"\[ (x + 1\,000)^2 = x^2 + 2\,000x + 1\,000\,000 \]", C),
    (r"So $0{,}125 \times 8 = 1$", U),
    (r"\[ (x + 0{,}125)^2 = x^2 + 250x + 15625 \]", U),  # not 125
    (r"\[ (x + 1,000)^2 = x^2 + 2,000x + 100,000 \]", W),
    (r"\[ x + 1,000 = 3,500 \], so \[ x = 2,400 \]", W),
    (r"\[ x = 1, 234 \]", U),  # a list
    # the dot operator and Greek letters typed inside LaTeX are read as their commands
    ("\\[ (x+1) ⋅ (x+2) = x^2 + 3x + 3 \\]", W),
    ("\\[ (x+1) ⋅ (x+2) = x^2 + 3x + 2 \\]", C),
    ("\\[ \\sin^2 θ + \\cos^2 θ = 2 \\]", W),
    ("the area is \\(π r^2 = π (3)^2 = 9π\\)", C),
    # a square bracket groups as a round one does: an expansion of a product, not an equation
    (r"Expanding, \[ (1 - 2x)[x^4 + 2x] = x^4 + 2x \]", W),
    (r"Expanding, \[ (1 - 2x)[x^4 + 2x] = x^4 + 2x - 2x^5 - 4x^2 \]", C),
    # a display that opens with `=` after an aligned one goes on with its chain: a slip the
    # chain recovers from there is excused as it is within one display
    (
        r"\[ \begin{aligned} \binom{14}{2} &= \frac{14 \times 13}{2} \\ &= \frac{14 \times 13}{1}"
        r" \end{aligned} \] \[ = 14 \times 13 / 1 = 7 \times 13 = 91 \]",
        C,
    ),
    (r"\[ \begin{aligned} a &= 3 + 4 \end{aligned} \] \[ = 8 \]", W),
    # ...but a matrix's end is no line's: its last row is no member of the chain after it
    (r"So \[\begin{vmatrix} -5 & 3 \\ 4 & -4 \end{vmatrix} = (-5)(-4) - (3)(4) = 8.\]", C),
    # a display ending in a number, the next opening with a fraction: no mixed number
    ("\\[ 4 \\times 5040 = 20160 \\]\n\\[ \\frac{20160}{2} = 10081 \\]", W),
    ("\\[ 4 \\times 5040 = 20160 \\]\n\\[ \\frac{20160}{2} = 10080 \\]", C),
    ("The sum is \\[ 2 + 3 = 5 \\]\n\\[ \\frac{1}{2} + \\frac{1}{2} = 1 \\]", C),
    # TeX's shorthand arguments are its braced ones (`\\frac59` is 5/9); where the next digit
    # would have joined the argument (`\\frac123`) nothing is read
    (r"so \( \frac59 < \frac{26}{41} < \frac47 \)", W),
    (r"so \( \frac59 < \frac{9}{16} < \frac47 \)", C),
    (r"\[ \frac12 + \frac13 = \frac56 \]", C),
    (r"\[ \frac12 + \frac13 = \frac25 \]", W),
    (r"\[ \frac1{10} + \frac{1}5 = \frac3{10} \]", C),
    (r"\[ \sqrt2 \cdot \sqrt8 = 5 \]", W),
    (r"\[ \sqrt[3]8 = 2 \]", C),
    (r"\[ \binom52 = 12 \]", W),
    (r"\[ (\tfrac x2 + 1)^2 = \frac{x^2}{4} + x + 2 \]", W),
    (r"\[ \cfrac{1}{1 + \cfrac{1}{2}} = \frac{3}{2} \]", W),
    (r"\[ \cfrac{1}{1 + \cfrac{1}{2}} = \frac{2}{3} \]", C),
    (r"\[ \frac123 = 4 \]", U),
    (r"\[ \sqrt23 = 5 \]", U),
    # a row that a row ending in an operator goes on with is no member of its own (a phantom
    # shows nothing: no `=` opens the row)
    (
        "\\begin{align*}\n(101 + (-1))^2 &= \\binom20 \\cdot 101^{2} + \\\\\n"
        "&\\phantom{=} \\binom21 \\cdot 101 \\cdot (-1) + \\\\\n"
        "&\\phantom{=} \\binom22 \\cdot 101^0\\\\\n"
        "& = 101^{2} - 2 \\cdot 101 + 1.\n\\end{align*}",
        U,
    ),
    ("\\begin{align*}\n10 &= 1 + 2 + \\\\\n& 3 + 4 \\\\\n&= 10\n\\end{align*}", U),
    ("\\begin{align*}\n80+79&+81+85 \\\\\n&= 4 \\cdot 80 + 5 = 326\n\\end{align*}", W),
    # orders drawn slanted and functions named by `\\operatorname` where LaTeX has a command
    (r"\[ 2^{10} = 1024 \leqslant 1000 \]", W),
    (r"We have \(-2x \geqslant 6\), hence \(x \geqslant -3\).", W),
    (r"We have \(-2x \geqslant 6\), hence \(x \leqq -3\).", U),  # follows: no flag
    (r"So \( \operatorname{gcd}(12, 18) = 3 \)", W),
    (r"So \( \operatorname{gcd}(12, 18) = 6 \)", C),
    (r"\[ \operatorname{sin}^2 x + \operatorname{cos}^2 x = 2 \]", W),
    # "or" or "and" typed inside the math joins two relations; the one after it is read too
    (r"Solving \(x^2 - 5x + 6 = 0\) gives \(x = 2 \text{ or } x = 4\).", W),
    (r"Solving \(x^2 - 5x + 6 = 0\) gives \(x = 2 \text{ or } x = 3\).", U),
    (r"Solving \(x^2 - 5x + 6 = 0\) gives \(x = 3 \mbox{, and } x = 4\).", W),
    (r"\(5 \text{ cm} + 3 \text{ cm} = 9 \text{ cm}\)", W),  # a unit stays in its member
    (r"Solving the system gives \(x + y = 10 \text{ and } x - y = 4\), so \(x = 8, y = 4\).", W),
    (r"Solving the system gives \(x + y = 10 \text{ and } x - y = 4\), so \(x = 7, y = 3\).", U),
    # other connectives typed inside the math ("so", "hence", "which gives") join too
    (r"\((x+3)^2 = x^2 + 6x + 9 \text{ so } (x+1)^2 = x^2 + 2x + 2\)", W),
    (r"\((x+3)^2 = x^2 + 6x + 9 \text{ so } (x+1)^2 = x^2 + 2x + 1\)", C),
    (r"\(x^2 - 5x + 6 = 0 \text{ hence } x = 4\)", W),
    (r"\(x^2 - 5x + 6 = 0 \text{, which gives } x = 3\)", U),
    (r"\(f(x) = x^2 \text{ thus } f(3) = 10\)", W),
    (r"\(x = 5 \text{ where } x \text{ is the count}\)", U),  # other words stay words
    # a letter the problem gives two values is neither of them
    (r"Then \(x^2 + 1 = 17\).", U, r"Let \(x = 2\) or \(x = 4\). Find \(x^2 + 1\)."),
    (r"Then \(x^2 + 1 = 5\).", U, r"Let \(x = 2 \text{ or } x = 4\). Find \(x^2 + 1\)."),
    (r"Then \(x^2 + 1 = 5\).", W, r"Let \(x = 4\). Find \(x^2 + 1\)."),
    # a letter given plus or minus a number takes both values; "or" typed in the math opens a
    # step's values as in prose
    (r"We have \(x^2 - x - 6 = 0\). So \(x = \pm 3\).", W),
    (r"We have \(x^2 - 9 = 0\). So \(x = \pm 3\).", U),
    (r"We have \(4x^2 = 1\), hence \(x = \pm \frac{1}{2}\).", U),
    (r"We have \(4x^2 - 4x + 1 = 2\), hence \(x = \pm \frac{1}{2}\).", U),  # none a root
    # ... inside a longer region too: a root claimed after an arrow, a square root taken of
    # both sides checked against the equation it came from
    (r"\(x^2 - x - 6 = 0 \Rightarrow x = \pm 3\)", W),
    (r"We have \(x^2 - x - 6 = 0\). So \(x = \pm\, 3\).", W),  # spacing is no part of it
    (r"We have \(x^2 - 2x - 1 = 0\). So \(x = 1 \pm \left(\sqrt{2}\right)\).", U),
    (r"We have \(x^2 - 2x - 2 = 0\). So \(x = \pm \left(1 + \sqrt{3}\right)\).", W),
    (r"\[ (x - 8)^2 = 144 \] Taking square roots, we get \[ x - 8 = \pm 14 \]", W),
    (r"\[ (x - 8)^2 = 144 \] Taking square roots, we get \[ x - 8 = \pm 12 \]", U),
    (r"\begin{align*} (x+3)^2 &= 121 \\ \Rightarrow\qquad x+3 &= \pm 12 \end{align*}", W),
    (r"\begin{align*} (x+3)^2 &= 121 \\ \Rightarrow\qquad x+3 &= \pm 11 \end{align*}", U),
    # neither solves it: in the equation's own region, right after it, they are its values;
    # in another region they may answer another question
    (r"\(x^2 = 5 \implies x = \pm \sqrt{6}\)", W),
    (r"\(x^2 = 5 \implies x = \sqrt{6} \quad\text{or}\quad x = -\sqrt{6}\)", W),
    (r"\(x^2 = 5\). Thus \(x = \pm \sqrt{6}\).", U),
    (r"\(x^2 = 5\). Thus \(x = \sqrt{6}\) or \(x = -\sqrt{6}\).", U),
    (r"\(x = \pm 2, y = \pm 3\), so \(x + y = 5\).", U),
    # letters a problem's "let" gives values in a list are all constants
    (r"Then \(a^2 + b^2 = 14\).", W, r"Let \(a = 2\) and \(b = 3\). Find \(a^2 + b^2\)."),
    (r"Then \(a + b + c = 10\).", W, r"Let \(a = 2\), \(b = 3\), and \(c = 4\). Find it."),
    (r"Then \(a + b + c = 9\).", C, r"Let \(a = 2\), \(b = 3\), and \(c = 4\). Find it."),
    (r"Then \(a + b = 7\).", U, r"Let \(a = 2\) and suppose \(b = 3\). Find \(a + b\)."),
    # a decimal without its leading zero is the one with it
    (r"\[ f(y) = 1 - .7(1 - 2y) = 1 - .7 + 1.4y = .3 + .4y \]", W),
    (r"\[ f(y) = 1 - .7(1 - 2y) = 1 - .7 + 1.4y = .3 + 1.4y \]", C),
    ("He pays .5 * 4 = 3 dollars.", W),
    # plain text whose relation opens with a minus sign is read with it
    ("We have -2x > 6, hence x > -3.", W),
    ("We have -2x > 6, hence x < -3.", U),  # follows: no flag
    ("From -3x + 4 = 10 we get x = 2.", W),
    ("From -3x + 4 = 10 we get x = -2.", U),
    ("Since −2(x − 3) = 4x, x = 2.", W),
    ("Since −2(x − 3) = 4x, x = 1.", C),
    # a capital letter in plain text names a quantity as a small one does (not "A" or "I"
    # unless an operator stands after them, nor two capitals: "PN" may be an abbreviation)
    ("The revenue is R = (450 - 5n)(500 + 10n); expanding, R = 225000 + 4000n - 50n^2.", W),
    ("The revenue is R = (450 - 5n)(500 + 10n); expanding, R = 225000 + 2000n - 50n^2.", U),
    ("The revenue is R = PN = (450 - 5n)(500 + 10n); expanding, R = 225000 + 4000n.", U),
    # a capital the relation also writes bare is a number: its bracket multiplies it; a
    # capital written only before a bracket may name a function, and stays unread
    (r"Subtracting, \[A = A \cdot C.\] Factoring, \[A = A(C - 1).\]", W),
    (r"Subtracting, \[A = A \cdot C.\] Factoring, \[A = A(C + 0).\]", U),
    (r"We have \(N(N + 1) = 2N^2 + N\).", W),
    (r"Expanding, \(\frac{N(N + 1)}{2} = \frac{N^2 + N}{2}\).", C),
    (r"Since \(P(x) = x^2 + 1\), \(P(2) = 6\).", W),
    (r"Then \(P(2) = 6\).", U),
    # a number that goes on in words after a relation in plain text: the relation is unread
    ("So 6w = 30 feet. Dividing both sides by 6: 6w / 6 = 30 feet / 6, so w = 5 feet.", C),
    # no arithmetic at all is unverifiable, never correct by default
    ("Therefore, Morgan can invite 3 friends to her birthday party.", U),
    ("Let's break down the problem step by step.", U),
]


@pytest.mark.parametrize("case", TRAPS, ids=[t[0][:40] for t in TRAPS])
def test_traps(calc, case):
    text, expected, *question = case
    assert status(calc, text, *question) == expected


def test_incorrect_evidence_names_claim_and_values(calc):
    v = calc.check_steps(["Total = 50 + 70 + 140 + 240 = 400"])[0]
    assert v.status == Status.INCORRECT and v.label is False
    assert "50 + 70 + 140 + 240 = 400" in v.evidence
    assert "claimed 400" in v.evidence and "true 500" in v.evidence


def test_evidence_of_a_value_put_back_names_the_sides(calc):
    # An equation solved only by putting the value back has no true value to print: the
    # evidence says what the sides are instead of "true -".
    v = calc.check_steps(["Since $\\log_2 x = 3$, we get $x = 9$."])[0]
    assert v.status == Status.INCORRECT, v.evidence
    assert "true -" not in v.evidence and "there the sides are" in v.evidence, v.evidence


def test_equation_that_does_not_follow(calc):
    steps = [
        "Simplifying the equation, we get: 150 + \\( x \\) = 500.",
        "Subtracting 150 from both sides, we get: \\( x \\) = 350 - 150. Therefore, x = 200.",
    ]
    verdicts = calc.check_steps(steps)
    assert verdicts[1].status == Status.INCORRECT


def test_equation_that_follows(calc):
    steps = [r"\[ 2x + 5 = 15 \Rightarrow 2x = 10 \]", r"\[ x = \frac{10}{2} = 5 \]"]
    assert [str(v.status) for v in calc.check_steps(steps)] == [C, C]


def test_variables_redefined_are_not_compared(calc):
    steps = ["Let x be the apples: 2x = 10, so x = 5.", "Let x be the pears: x + 1 = 8"]
    assert [str(v.status) for v in calc.check_steps(steps)] == [C, U]


def test_two_roots_are_not_a_contradiction(calc):
    text = r"\[ x - 3 = 0 \] or \[ x + 2 = 0 \] so \[ x = 3 \] or \[ x = -2 \]"
    assert status(calc, text) == U


def test_named_result_restated_on_next_line(calc):
    text = (
        r"\[ \text{Total fruits} = 52 + 24 + 44 + 48 \] "
        "\n"
        r"\[ \text{Total fruits} = 178 \]"
    )
    assert status(calc, text) == W


def test_wrong_simplification_with_unknown(calc):
    assert status(calc, r"\( (x - 16 + 100) - 25 = x + 69 - 25 = x + 45 \)") == W


@pytest.mark.parametrize(
    ("text", "expected", "why"),
    [
        ("9^9^9^9 = 5", U, "too large to check"),
        ("2^(10^8) = 7", U, "too large to check"),
        ("500! = 7", U, "too large to check"),
        ("1" * 10_000 + " + 1 = 2", U, "no checkable arithmetic"),
        ("(" * 500 + "1" + ")" * 500 + " + 1 = 3", U, "no checkable arithmetic"),
        (r"\frac{" * 300 + "1" + "}{2}" * 300 + " = 4", U, "no checkable arithmetic"),
        # the bounds refuse only what is out of reach: just under them a false claim is caught
        ("400! = 7", W, "claimed 7"),
        ("(" * 10 + "1" + ")" * 10 + " + 1 = 3", W, "true 2"),
        # true links, 1,999 of them: correct, and still in-process
        ("=".join(["1 + 1"] * 2000), C, "1999 claim(s) hold"),
    ],
    ids=[
        "tower",
        "huge-power",
        "factorial",
        "10k-digits",
        "parens",
        "nested-frac",
        "factorial-in-reach",
        "parens-in-reach",
        "long-chain",
    ],
)
def test_pathological_input_is_bounded_in_process(text, expected, why):
    # Every false claim here must come out `unverifiable` (refused, with the reason) or
    # `incorrect`, never `correct`. The clock bound is far above the microseconds these take:
    # it catches an unbounded computation (computing 9^9^9^9 would never end), not speed
    # (figures: benchmarks/bench_calculator.py).
    calc = CalculatorVerifier(timeout_s=1.0)
    start = time.perf_counter()
    verdict = calc.check_steps([text])[0]
    assert time.perf_counter() - start < 30.0
    assert (str(verdict.status), why in verdict.evidence) == (expected, True), verdict.evidence
    assert calc._worker is None  # size bounds answered before any worker was needed
    calc.close()


def test_sympy_path_in_worker(calc):
    assert status(calc, r"\[ \sqrt{8} = 2\sqrt{2} \]") == C
    assert status(calc, r"\[ \sqrt{8} = 3\sqrt{2} \]") == W
    assert status(calc, r"\[ 2\pi \times 3 = 6\pi \]") == C


def test_sympy_timeout_becomes_timeout_verdict(monkeypatch):
    import verifiers.calculator.verifier as calculator

    monkeypatch.setattr(calculator, "sympy_compare", _sleepy_compare)
    calc = CalculatorVerifier(timeout_s=0.5)
    start = time.perf_counter()
    verdict = calc.check_steps([r"\sqrt{2} \approx 1.41"])[0]
    assert verdict.status == Status.TIMEOUT
    assert time.perf_counter() - start < 10
    assert calc.check_steps(["3 + 4 = 7"])[0].status == Status.CORRECT  # in-process still fine
    calc.close()


def _sleepy_compare(left, right):  # module level: the worker pickles it by reference
    time.sleep(30)


def test_worker_start_is_not_charged_to_a_check():
    # Spawning the child and importing sympy takes longer than this budget; only the check
    # itself may use it. After a timeout kills the child, the next one is warmed up again.
    calc = CalculatorVerifier(timeout_s=0.1)  # a warm check takes ~2 ms
    assert calc.check_steps([r"\[ \sqrt{8} = 2\sqrt{2} \]"])[0].status == Status.CORRECT
    calc._worker._kill()  # as a timeout would; the worker warms its next child up again
    assert calc.check_steps([r"\[ \sqrt{8} = 3\sqrt{2} \]"])[0].status == Status.INCORRECT
    calc.close()


def test_a_step_stuck_in_sympy_costs_its_own_limit_not_the_chains():
    # The tower of powers keeps sympy busy for minutes. The worker stops that step at its
    # limit, so the chain's call (bounded by the sum of its steps' limits) is never killed:
    # the same child judges the steps after it.
    calc = CalculatorVerifier(config=CalcConfig(symbolic_timeout_s=0.5))
    assert calc.check_steps([r"\[ (a+1)^2 = a^2 + 2a + 1 \]"])[0].status == Status.CORRECT
    child = calc._worker._proc.pid
    steps = [r"\[ x^{x^{x^{x^{x}}}} = x + 1 \]", r"\[ (b+1)^2 = b^2 + 2b + 2 \]",
             r"\[ (c+1)^2 = c^2 + 2c + 1 \]"]  # fmt: skip
    assert [str(v.status) for v in calc.check_steps(steps)] == ["timeout", W, C]
    assert calc._worker._proc.pid == child
    calc.close()


def test_a_binomial_too_large_to_compute_abstains_before_sympy_starts(calc):
    # `\\binom{10^9}{5 \\cdot 10^8}` has some 300 million digits: sympy would work on it past
    # any limit, so the reader declines it (as it declines 10^6!) and the step abstains as
    # unread, not as a timeout; a binomial of a thousand digits is still computed and judged.
    # An n past a float's range (2^2100) is sized without a float, and a huge n with a small
    # k is small enough to compute.
    huge, big, beyond, few = calc.check_steps(
        [
            r"So $\binom{1000000000}{500000000} = 3$.",
            r"So $\binom{2000}{1000} = 3$.",
            r"So $\binom{2^{2100}}{2^{2009}} = 3$.",
            r"So $\binom{10^{400}}{2} = 3$.",
        ]
    )
    assert str(huge.status) == U and "not read whole" in huge.evidence
    assert str(big.status) == W
    assert str(beyond.status) == U and "not read whole" in beyond.evidence
    assert str(few.status) == W


def test_verify_contract_one_verdict_per_step(calc):
    problem = Problem("p1", "math", "gsm8k", "q", reference="4")
    steps = ("Intro with no numbers.", "2 + 2 = 4", "2 + 2 = 5")
    chain = Chain("p1", "c1", 0, "\n\n".join(steps), steps, "m")
    [verdicts] = calc.verify([(problem, chain)])
    assert [str(v.status) for v in verdicts] == [U, C, W]
    assert calc.name == "calc"


def test_a_submitted_job_is_collected_while_the_caller_works():
    # `submit` returns at once; a `call` made before `collect` waits for the job in flight,
    # and `collect` then gives the submitted job's value, or raises what `call` would.
    worker = KillableWorker(memory_mb=512)
    try:
        worker.submit(_slow_square, 7, timeout=20.0)
        assert worker.call(_slow_square, 2, timeout=20.0) == 4
        assert worker.collect() == 49
        worker.submit(_sleepy_compare, 1, 2, timeout=0.5)
        with pytest.raises(CheckTimeoutError):
            worker.collect()
        assert worker.call(_slow_square, 3, timeout=20.0) == 9  # a fresh child after the kill
    finally:
        worker.close()


def test_done_says_whether_collect_would_wait():
    worker = KillableWorker(memory_mb=512)
    try:
        assert worker.done()  # nothing in flight
        worker.submit(_slow_square, 5, timeout=20.0)
        assert not worker.done()  # the job sleeps 0.2 s
        deadline = time.monotonic() + 20.0
        while not worker.done() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.done() and worker.collect() == 25
        assert worker.done()
    finally:
        worker.close()


def test_each_thread_collects_its_own_job():
    import threading

    worker = KillableWorker(memory_mb=512)
    got = {}

    def other():
        worker.submit(_slow_square, 3, timeout=20.0)
        got["other"] = worker.collect()

    try:
        worker.submit(_slow_square, 7, timeout=20.0)
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert (worker.collect(), got["other"]) == (49, 9)
    finally:
        worker.close()


def _slow_square(n):  # module level: the worker pickles it by reference
    time.sleep(0.2)
    return n * n


@pytest.mark.parametrize("workers", [1, 2])
def test_verify_gives_each_chain_what_check_steps_gives(workers):
    # `verify` runs chains' numeric checks while the workers judge the ones before them (more
    # chains than it runs ahead of them); the verdicts must be those each chain gets alone,
    # in order, whichever worker judged it.
    chains = [
        ("Expanding, $(x+3)^2 = x^2 + 6x + 6$.", "So $2 + 2 = 4$."),
        ("We have $\\sqrt{8} = 2\\sqrt{2}$.", "Then $3 \\cdot 5 = 16$."),
        ("Factoring, $x^2 - 5x + 6 = (x - 2)(x - 3)$.",),
    ] * 4
    items = [
        (Problem(f"p{k}", "math", "math", "q"), Chain(f"p{k}", f"c{k}", 0, " ".join(s), s, "m"))
        for k, s in enumerate(chains)
    ]
    together, alone = CalculatorVerifier(config=CalcConfig(workers=workers)), CalculatorVerifier()
    try:
        got = [[(str(v.status), v.evidence) for v in vs] for vs in together.verify(items)]
        want = [[(str(v.status), v.evidence) for v in alone.check_steps(s)] for s in chains]
        started = len(together._workers)
    finally:
        together.close()
        alone.close()
    assert got == want
    assert started == workers  # the second one judged chains while the first was busy
    assert [s for vs in got for s, _ in vs] == [W, C, C, W, C] * 4


def test_a_chain_stuck_in_one_worker_holds_back_no_other():
    # Two workers: while one runs a step to its limit, the other judges the chains after it;
    # the verdicts come out in order, each what the chain gets alone. (The limit leaves the
    # quick steps room on a loaded machine: at half a second a fresh worker's first step
    # timed out there beside a test run.)
    config = CalcConfig(symbolic_timeout_s=3.0, workers=2)
    chains = [
        (r"\[ x^{x^{x^{x^{x}}}} = x + 1 \]", r"\[ (b+1)^2 = b^2 + 2b + 2 \]"),
        ("Expanding, $(x+3)^2 = x^2 + 6x + 9$.",),
        ("We have $\\sqrt{8} = 3\\sqrt{2}$.",),
    ]
    items = [
        (Problem(f"p{k}", "math", "math", "q"), Chain(f"p{k}", f"c{k}", 0, " ".join(s), s, "m"))
        for k, s in enumerate(chains)
    ]
    together, alone = CalculatorVerifier(config=config), CalculatorVerifier(config=config)
    try:
        got = [[str(v.status) for v in vs] for vs in together.verify(items)]
        want = [[str(v.status) for v in alone.check_steps(s)] for s in chains]
    finally:
        together.close()
        alone.close()
    assert got == want == [["timeout", W], [C], [W]]
