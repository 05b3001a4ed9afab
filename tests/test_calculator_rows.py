# ruff: noqa: E501 (a data table of real step strings)
"""Real step strings with the calculator's expected verdict (a regression table).

Rows: (source, step text, verdict). Sources: `gsm8k-train` lines (correct calculator
annotations), ProcessBench dev steps that humans marked as the first error and that hold a
false claim (`incorrect`), and steps of chains humans judged all-correct that carry the traps
(rounding, percentages, units, LaTeX, labels): those must never be `incorrect`.
Copied from /work/shared/data; short enough to embed. `FAMILIES`: the misread families of
issue 10, each with the true errors of its shape that must still be flagged.
"""

import pytest

ROWS = [
    ("gsm8k-train", "John took 16+5 = <<16+5=21>>21 chickens", "correct"),
    (
        "gsm8k-train",
        "At a rate of 8 degrees per hour, in three hours the temperature rose by 3*8=<<3*8=24>>24 degrees.",
        "correct",
    ),
    ("gsm8k-train", "Grace's age is 3/8 * 160 years = <<3/8*160=60>>60 years old.", "correct"),
    (
        "gsm8k-train",
        "First find the total number of monthly commutes: 5 days/week * 4 weeks/month = <<5*4=20>>20 days/month",
        "correct",
    ),
    (
        "gsm8k-train",
        "Three were eaten, so there will be 14 - 3 = <<14-3=11>>11 ripe peaches left.",
        "correct",
    ),
    ("gsm8k-train", "Thus, his monthly expenses is $280 + $288 =$<<280+288=568>>568.", "correct"),
    ("gsm8k-train", "There are 200 + 32 = <<200+32=232>>232 red apples.", "correct"),
    (
        "gsm8k-train",
        "A baby panda will eat 50 pounds * 7 days = <<50*7=350>>350 pounds.",
        "correct",
    ),
    (
        "gsm8k-train",
        "Since Tom is three times as fast as Tina, for the same reasons as above this means his time is 6/3= <<6/3=2>>2 minutes.",
        "correct",
    ),
    ("gsm8k-train", "He drove 20 miles because 2 x 10 = <<2*10=20>>20", "correct"),
    (
        "gsm8k-train",
        "Nikki's movie is also three times as long as Michael's favorite movie, meaning Michael's favorite movie is 30/3 = <<30/3=10>>10 hours long.",
        "correct",
    ),
    ("gsm8k-train", "k=78/2=<<78/2=39>>39", "correct"),
    (
        "gsm8k-train",
        "First find Devin's new height by adding his growth to the original height: 65 inches + 3 inches = <<65+3=68>>68 inches",
        "correct",
    ),
    (
        "gsm8k-train",
        "Since she is making $15 per hour of work, she will earn $15*240 = $<<15*240=3600>>3600 after cleaning all the rooms.",
        "correct",
    ),
    (
        "gsm8k-train",
        "Isabela bought twice as many cucumbers as pencils, meaning she bought 100/2 = <<100/2=50>>50 pencils.",
        "correct",
    ),
    ("gsm8k-train", "There are 16/4 = <<16/4=4>>4 slices", "correct"),
    (
        "gsm8k-train",
        "He needs 50 hits in the final 10 games because 90 - 40 = <<90-40=50>>50",
        "correct",
    ),
    (
        "gsm8k-train",
        "In the first part of her trip, Diana will cover 2 hours * 3 mph = <<2*3=6>>6 miles.",
        "correct",
    ),
    (
        "gsm8k-train",
        "Then find the total time Ann's trip takes: 800 feet / 40 feet/minute = <<800/40=20>>20 minutes",
        "correct",
    ),
    (
        "gsm8k-train",
        "Mary originally had 8 screws, then went to buy twice more screws and ended up with 8+(8*2)=<<8+8*2=24>>24 of them.",
        "correct",
    ),
    (
        "gsm8k-train",
        "The total number of eggs that Emma and Tank gathered in the second round was 60+30=<<60+30=90>>90",
        "correct",
    ),
    (
        "gsm8k-train",
        "Each of the last two baskets contains an equal amount of fruits which is 18/2 = <<18/2=9>>9 fruits",
        "correct",
    ),
    (
        "gsm8k-train",
        "Since the class has 500 tables with 200 books on top of each, there are 500*200 = <<500*200=100000>>100000 books.",
        "correct",
    ),
    ("gsm8k-train", "Ben picked 10-3=<<10-3=7>>7 pints.", "correct"),
    (
        "gsm8k-train",
        "The factory due to shortages will produce 200 - 50 = <<200-50=150>>150 cars.",
        "correct",
    ),
    (
        "gsm8k-train",
        "As she gave 1 balloon out, 12 balloons floated away plus she gave away 9 more balloons so she is down 1+12+9 = <<1+12+9=22>>22 balloons",
        "correct",
    ),
    ("gsm8k-train", "He folded them 4 times because 192 / 48 = <<192/48=4>>4", "correct"),
    (
        "gsm8k-train",
        "They have 15 rubber bands + 9 rubber bands = <<15+9=24>>24 rubber bands together.",
        "correct",
    ),
    (
        "gsm8k-train",
        "The width of his garden is going to be 1000 / 8 = <<1000/8=125>>125 feet.",
        "correct",
    ),
    ("gsm8k-train", "There are 9000/(2+1)=<<9000/(2+1)=3000>>3000 hens on the farm.", "correct"),
    ("gsm8k-train", "On day two, she read 63 * 2 = <<63*2=126>>126 pages.", "correct"),
    ("gsm8k-train", "Combined, Frankie and Eduardo taught 3 + 6 = <<3+6=9>>9 classes.", "correct"),
    ("gsm8k-train", "The perimeter of the lake is 4*15=<<4*15=60>>60 miles", "correct"),
    ("gsm8k-train", "Her mom brought 36+8=<<36+8=44>>44 pairs of socks", "correct"),
    ("gsm8k-train", "The time in minutes is 1.5 * 60 = <<1.5*60=90>>90 minutes.", "correct"),
    (
        "gsm8k-train",
        "The number of musicians in the orchestra is 11 + 12 = <<11+12=23>>23.",
        "correct",
    ),
    ("gsm8k-train", "Martin needs 15 cups so that's 2*15 = $<<15*2=30.00>>30.00.", "correct"),
    ("gsm8k-train", "He caught 3 trout because 5 x .6 = <<5*.6=3>>3", "correct"),
    ("gsm8k-train", "Each dose is 500*2=<<500*2=1000>>1000 mg", "correct"),
    (
        "gsm8k-train",
        "The money she earns from selling paintings is 3 * $50 = $<<3*50=150>>150",
        "correct",
    ),
    (
        "gsm8k-train",
        "Finally, divide the number of onions by 3 to find the number of green beans she needs 24 / 3 = <<24/3=8>>8.",
        "correct",
    ),
    ("gsm8k-train", "On Saturday, her fruiting plant count is 14 + 2 = <<14+2=16>>16.", "correct"),
    (
        "gsm8k-train",
        "Thus, from 4-7pm, raining at a rate of 3 inches per hour, it added 3*3=<<3*3=9>>9 inches to the rain gauge.",
        "correct",
    ),
    ("gsm8k-train", "From 7pm to 9pm is 9-7=<<9-7=2>>2 hours.", "correct"),
    (
        "gsm8k-train",
        "In one week, Christina walks 14 km/day * 5 days/week = <<14*5=70>>70km to school.",
        "correct",
    ),
    ("gsm8k-train", "Jane uses a total of 20 * 2 = <<20*2=40>>40 ribbons", "correct"),
    ("gsm8k-train", "In five years, Clara's age will be 56+5=<<56+5=61>>61 years.", "correct"),
    (
        "gsm8k-train",
        "If 40 fish are required to make one sushi roll, 320 fish will make 320/40 = <<320/40=8>>8 sushi rolls",
        "correct",
    ),
    (
        "gsm8k-train",
        "12 liters of water mixed with 15 liters of vinegar gives 12+15 = <<12+15=27>>27-liter mixture",
        "correct",
    ),
    (
        "gsm8k-train",
        "Each school bus also carries 8 Neglart students, for a total of 8*10=<<8*10=80>>80 Neglart toes.",
        "correct",
    ),
    (
        "gsm8k-34",
        "Finally, we add up the monthly earnings of all three individuals to find the total amount of money they have together: Total amount = 5000 + 10000 + 30000 = \\boxed{43000}. Therefore, the total amount of money they all have together is $43,000.",
        "incorrect",
    ),
    (
        "gsm8k-36",
        "Now, we sum the number of people seen each day to find the total number of people Conor saw at the beach that week: \\[ 50 + 70 + 140 + 240 = 400 \\]",
        "incorrect",
    ),
    (
        "gsm8k-46",
        "Since the combined total is 500, we can set up the equation: 30 + 15 + \\( x \\) + 105 = 500. Simplifying the equation, we get: 150 + \\( x \\) = 500. Subtracting 150 from both sides, we get: \\( x \\) = 350 - 150. Therefore, \\( x \\) = 200.",
        "incorrect",
    ),
    (
        "gsm8k-51",
        "So Adelwolfe has caught 40 Pokémon. Stan has caught \\( 4x - 13 = 4(40) - 13 = 157 \\) Pokémon.",
        "incorrect",
    ),
    (
        "gsm8k-101",
        "Third, since Mrs. Harrington kept 1/4 of the oranges, let's first find out how many oranges that is. Total oranges initially = 12 * 20 = 240 oranges. 1/4 of the oranges = (1/4) * 240 = 60 oranges.",
        "correct",  # the human error is logical; the arithmetic holds
    ),
    (
        "gsm8k-113",
        "On the third day, the nurses ordered two bulk packs of 50 bandages each, adding \\( 2 \\times 50 = 100 \\) bandages. They used half a bulk pack, which is \\( \\frac{50}{2} = 25 \\) bandages. After using 25 bandages, the remaining bandages are \\( (x - 16 + 100) - 25 = x + 69 - 25 = x + 44 \\).",
        "incorrect",
    ),
    (
        "gsm8k-122",
        "To find the percentage of spools that are blue, we first need to determine the total number of spools Candy has and then calculate how many of those are blue. The total number of spools is: \\[15 (\\text{light blue}) + 45 (\\text{dark blue}) + 40 (\\text{light green}) + 50 (\\text{dark green}) = 160 \\text{ spools}\\]",
        "incorrect",
    ),
    (
        "gsm8k-126",
        "If Sam had 70 loaves of bread last Friday, then the bakery has 7 * 70 - 40 = 470 - 40 = 430 loaves of bread.",
        "incorrect",
    ),
    (
        "gsm8k-141",
        "Second, calculate the value of the nickels: Brady has 40 nickels. Since 5 nickels equal 1 dollar, the value of the nickels is: \\[ \\frac{40}{5} = 3 \\text{ dollars} \\]",
        "incorrect",
    ),
    (
        "gsm8k-151",
        "Now, to find the total age of the four birds (Sally Two, Sally Four, Granny Red, and Sally Thirtytwo), we simply add their ages together: Sally Two = 19 years, Sally Four = 8 years, Granny Red = 16 years, Sally Thirtytwo = 8 years. Total age = 19 + 8 + 16 + 8 = 41 years.",
        "incorrect",
    ),
    (
        "gsm8k-153",
        "To find \\( S \\), we multiply both sides of the equation by the reciprocal of \\( \\frac{11}{6} \\), which is \\( \\frac{6}{11} \\): \\[ S = 165 \\times \\frac{6}{11} \\] \\[ S = 9 \\times 6 \\] \\[ S = 54 \\]",
        "incorrect",
    ),
    (
        "math-0",
        "To determine the remainder of 194 (mod 11), I'll perform the following steps: First, divide 194 by 11: 194 ÷ 11 = 17 with a remainder of 9. This means that 194 can be written as: 194 = 11 × 17 + 9.",
        "incorrect",
    ),
    (
        "math-4",
        "To find the total number of arrangements, we multiply the number of ways to arrange the units (Step 2) by the number of ways to arrange each group internally (Step 3). Total number of arrangements = (number of ways to arrange units) * (number of ways to arrange Germans) * (number of ways to arrange French) * (number of ways to arrange Italians) = 6 * 720 * 120 * 6 = 6 * 518400 = 3104400.",
        "incorrect",
    ),
    (
        "math-8",
        "We are given that \\( a_3 = 1 \\), \\( a_2 = 2 \\), \\( a_1 = 2 \\), and \\( a_0 = 2 \\). Therefore, \\( n = 1 \\cdot 3^3 + 2 \\cdot 3^2 + 2 \\cdot 3^1 + 2 \\cdot 3^0 = 81 + 18 + 6 + 2 = 107 \\).",
        "incorrect",
    ),
    (
        "math-100",
        "We have: $$\\dbinom{13}{4}=\\frac{13!}{4!(13-4)!}=\\frac{13!}{4!9!}=\\frac{13\\cdot 12\\cdot 11\\cdot 10\\cdot9!}{4\\cdot3\\cdot2\\cdot1\\cdot9!}=\\frac{13\\cdot 12\\cdot 11\\cdot 10}{4\\cdot3\\cdot2\\cdot1}=\\frac{13\\cdot 11\\cdot 10\\cdot 11}{4\\cdot3\\cdot2}=\\frac{13\\cdot 11\\cdot 5\\cdot 11}{4\\cdot3\\cdot2}=\\frac{13\\cdot 55}{4}=13\\cdot 13.75=182.5.$$",
        "incorrect",
    ),
    (
        "math-140",
        "To simplify \\(\\sqrt{32670}\\), we can factor the radicand (the expression inside the square root symbol) into its prime factors: \n\\[32670 = 2 \\cdot 16335 = 2 \\cdot 3^2 \\cdot 2715 = 2 \\cdot 3^2 \\cdot 3 \\cdot 905 = 2 \\cdot 3^3 \\cdot 5 \\cdot 181.\\]",
        "incorrect",
    ),
    (
        "math-146",
        "Next, we add and subtract from left to right: $182 + 21 = 193$, $193 - 32 = 161$, $161 + 9 = 170$.",
        "incorrect",
    ),
    (
        "math-237",
        "Finally, we perform the arithmetic to find the value:\n\\begin{align*}\n\\dbinom{182}{180} &= \\frac{(182)(181)}{2} = 16,511\n\\end{align*}",
        "incorrect",
    ),
    (
        "math-272",
        "Next, calculate the values inside the parentheses:\n\\[ 1 + 11 = 12 \\]\n\\[ 12 \\times 11 = 132 \\]\n\\[ 1 + 11 + 132 = 145 \\]",
        "incorrect",
    ),
    (
        "math-282",
        "First, we simplify the mixed number:\n\\[\n\\left(4 + \\dfrac{5}{8}\\right)^{55} = \\left(\\dfrac{33}{8} + \\dfrac{5}{8}\\right)^{55} = \\left(\\dfrac{38}{8}\\right)^{55}.\n\\]",
        "incorrect",
    ),
    ("math-361", "Third, calculate \\(429 \\times 21\\): \\[429 \\times 21 = 8979\\]", "incorrect"),
    (
        "math-481",
        "Calculating each term:\n\\[ \\left(\\frac{3\\sqrt{2}}{2}\\right)^4 = \\left(\\frac{3^2 \\cdot 2^2}{2^4}\\right)^2 = \\left(\\frac{9 \\cdot 4}{16}\\right)^2 = \\left(\\frac{9}{4}\\right)^2 = \\frac{81}{16} \\]\n\\[ 9\\left(\\frac{3\\sqrt{2}}{2}\\right)^2 = 9 \\cdot \\frac{9 \\cdot 2}{4} = 9 \\cdot \\frac{18}{4} = 9 \\cdot \\frac{9}{2} = \\frac{81}{2} = \\frac{648}{16} \\]",
        "incorrect",
    ),
    (
        "math-483",
        "Finally, we combine the choices of men and women. We can combine the choices of men and women in any order, so we multiply the number of ways to choose each:\n$$4060 \\times 91390 = 371251400$$\nways.",
        "incorrect",
    ),
    (
        "math-485",
        "Fourth, find the y-coordinate of the vertex. Now that we have the x-coordinate of the vertex, let's plug this value back into the original expression to find the y-coordinate. \\(y = 4\\left(\\frac{-5}{2} + 7\\right)\\left(2 - \\frac{-5}{2}\\right) = 4\\left(\\frac{-5 + 14}{2}\\right)\\left(\\frac{2 + 5}{2}\\right) = 4\\left(\\frac{9}{2}\\right)\\left(\\frac{7}{2}\\right) = 4\\left(\\frac{63}{4}\\right) = 63\\).",
        "incorrect",
    ),
    (
        "math-772",
        "To determine whether the decimal representation of $\\frac{n}{1375}$ terminates for a given value of $n$, we need to consider the prime factorization of the denominator. First, let's find the prime factorization of 1375: 1375 = 5^2 * 11 * 25 = 5^2 * 11 * 5^2. Now, we can rewrite 1375 as: 1375 = 5^4 * 11.",
        "incorrect",
    ),
    (
        "olympiadbench-140",
        "Next, we need to find the length of one of the congruent sides. Let's call this length \\( s \\). The trapezoid can be divided into a rectangle and two right triangles. The bases of these right triangles are each:\n\\[ \\frac{b_2 - b_1}{2} = \\frac{10 - 7}{2} = 3 \\]",
        "incorrect",
    ),
    (
        "olympiadbench-275",
        "First, find the prime factorization of 1584. The prime factorization of 1584 can be calculated as follows: \\( 1584 = 2^3 \\cdot 3^2 \\cdot 11 \\).",
        "incorrect",
    ),
    (
        "olympiadbench-309",
        "We observe that the sums of the groups form an arithmetic sequence where the first term is 9 and the common difference is -18: \\[9, -27, 45, -63, \\ldots\\] The general term of this arithmetic sequence can be written as: \\[a_n = 9 - 18(n-1) = 18 - 18n\\]",
        "incorrect",
    ),
    (
        "olympiadbench-327",
        "Therefore, the sequence \\(a_0 = -\\frac{1}{n}\\) and \\(a_k = (-1)^k \\frac{1}{n}\\) for \\(k \\geq 1\\) satisfies both conditions. The length of this sequence is \\(N+1 = n\\), so the largest \\(N\\) is \\(n-1\\). Thus, the answer is:\n\\[ \\boxed{n-1} \\]",
        "unverifiable",
    ),
    (
        "olympiadbench-356",
        "To find the percentage of acid in the new mixture, we need to divide the total acid content by the total mass of the new mixture and multiply by 100: $\\frac{14}{60} \\cdot 100 = \\boxed{23.33\\%}$.",
        "unverifiable",  # "x 100 = 23.33%": a percent sign slip is excused
    ),
    (
        "olympiadbench-488",
        "Next, consider the term \\(\\log_{4} 2^{8!}\\). We can use the change of base formula for logarithms, which states that \\(\\log_{a} b = \\frac{\\log_{c} b}{\\log_{c} a}\\). Using base 2, we get:\n\\[ \\log_{4} 2^{8!} = \\frac{\\log_{2} 2^{8!}}{\\log_{2} 4} = \\frac{8!}{2} = 4 \\cdot 8! \\]",
        "incorrect",
    ),
    (
        "olympiadbench-998",
        "- For \\(x = 1\\), we get \\(1 - 8 - 8 - 9 = -24\\), not 0.\n- For \\(x = -1\\), we get \\(-1 - 8 + 8 - 9 = -10\\), not 0.\n- For \\(x = 3\\), we get \\(27 - 72 - 24 - 9 = -68\\), not 0.\n- For \\(x = -3\\), we get \\(-27 - 72 + 24 - 9 = -84\\), not 0.\n- For \\(x = 9\\), we get \\(729 - 720 - 72 - 9 = 729 - 729 = 0\\), this checks out.",
        "incorrect",
    ),
    (
        "omnimath-51",
        "- For \\(C = 9\\), \\(B^C = 512\\). Then, \\(101A + 10 \\cdot 2 + C = 512\\) gives \\(101A + 20 + C = 512\\), so \\(101A + C = 492\\). Since \\(C\\) is a digit, the only possible value for \\(A\\) is 4, and \\(C = 92 - 4 = 9\\). Thus, we have \\(\\overline{ABC} = 429\\).",
        "incorrect",
    ),
    (
        "omnimath-60",
        "We can set up an equation based on the total mass of the bars taken from the boxes: \\[90(1) + 100(2) + 100(4) + 100(8) + 100(16) = 2920\\] This comes from considering one bar from the 90 g box, two bars from the 100 g box, four bars from the 100 g box, eight bars from the 100 g box, and sixteen bars from the 100 g box.",
        "incorrect",
    ),
    (
        "omnimath-145",
        "First, let's start by breaking down 636405 into smaller factors. 636405 = 5 × 127281. Now, let's break down 127281 further: 127281 = 9 × 14109. Breaking down 14109: 14109 = 11 × 1281. And breaking down 1281: 1281 = 3 × 427. Now, breaking down 427: 427 = 7 × 61. So, the prime factorization of 636405 is: 5 × 3 × 7 × 9 × 11 × 61.",
        "incorrect",
    ),
    (
        "omnimath-187",
        "Fifth, in Year 4:\n- Squirrels: 2 * 14141 + 2019 = 32301\n- Rabbits: 4 * 22 - 2 = 86",
        "incorrect",
    ),
    (
        "omnimath-280",
        "The exponent \\(5^{3^{2^1}} = 5^8\\) is what we need to reduce modulo 10. Since \\(5^2 = 25 \\equiv 5 \\pmod{10}\\), we have \\(5^4 \\equiv 5^2 \\equiv 5 \\pmod{10}\\), and thus \\(5^8 \\equiv 5^4 \\equiv 5 \\pmod{10}\\).",
        "incorrect",
    ),
    (
        "omnimath-287",
        "To find the sum of the positive divisors of 1184, we need to follow these steps: First, **prime factorize** 1184. We can start by dividing 1184 by the smallest prime number, which is 2. 1184 ÷ 2 = 592, 592 ÷ 2 = 296, 296 ÷ 2 = 148, 148 ÷ 2 = 74, 74 ÷ 2 = 37. Since 37 is a prime number, we cannot divide it further. Therefore, the prime factorization of 1184 is: 1184 = 2^4 × 37.",
        "incorrect",
    ),
    (
        "omnimath-587",
        "For \\(x\\) values in between:\n- \\(x = 31\\): \\(y = 4(31) + 3 = 124\\)\n- \\(x = 32\\): \\(y = 4(32) + 3 = 128\\)\n- ...\n- \\(x = 60\\): \\(y = 4(60) + 3 = 243\\)",
        "incorrect",
    ),
    (
        "omnimath-767",
        "We test some integer values of \\(c\\): For \\(c = 12\\): \\[ 12^3 + 3 \\cdot 12^2 + 1 = 1728 + 432 + 1 = 2017 \\] This is correct, so \\(c = 12\\).",
        "incorrect",
    ),
    (
        "olympiadbench-573",
        "To solve this problem, we can use combinatorics. Let's denote the number of ways to select 2 students from the original class as \\( C(n, 2) \\), and the number of ways to select 2 students from the class with 2 additional students as \\( C(n+2, 2) \\). We know that \\( C(n, 2) = \\frac{n(n-1)}{2} \\) and \\( C(n+2, 2) = \\frac{(n+2)(n+1)}{2} \\).",
        "unverifiable",
    ),
    (
        "math-756",
        "Now, since the diagonals of a rectangle are congruent, \\(QS = PR = 10\\). We also know that the diagonals of a rectangle bisect each other, so \\(PX = XS = \\frac{QS}{2} = \\frac{10}{2} = 5\\).",
        "correct",
    ),
    (
        "math-659",
        "Dividing both sides by 2:\n\\[ \\mathbf{a} \\cdot \\mathbf{b} + \\mathbf{a} \\cdot \\mathbf{c} + \\mathbf{b} \\cdot \\mathbf{c} = -\\frac{155}{2} \\]",
        "unverifiable",
    ),
    (
        "omnimath-678",
        "Now, let's find the sum of the series from \\(T_1\\) to \\(T_n\\):\n\\[S = T_1 + T_2 + T_3 + \\cdots + T_n\\]\n\\[= \\frac{10^1 - 1}{9} + \\frac{10^2 - 1}{9} + \\frac{10^3 - 1}{9} + \\cdots + \\frac{10^n - 1}{9}\\]\n\\[= \\frac{1}{9}(10^1 + 10^2 + 10^3 + \\cdots + 10^n) - \\frac{n}{9}\\]",
        "unverifiable",
    ),
    (
        "olympiadbench-909",
        "Therefore, the area of \\( \\triangle ABC \\) is: \\[ \\text{Area} = \\frac{1}{2} \\times \\text{base} \\times \\text{height} = \\frac{1}{2} \\times 2\\sqrt{k(10 - k)} \\times (10 - k) = \\sqrt{k(10 - k)} \\times (10 - k) = (10 - k)\\sqrt{k(10 - k)}. \\]",
        "unverifiable",
    ),
    (
        "olympiadbench-821",
        "Third, simplify the equation: Combine the terms on the left-hand side:\n\\[ ax + b - \\frac{x - b}{a} = 44 \\]\nTo combine these terms, find a common denominator:\n\\[ \\frac{a^2x + ab - (x - b)}{a} = 44 \\]\nSimplify the numerator:\n\\[ \\frac{a^2x + ab - x + b}{a} = 44 \\]\nCombine like terms in the numerator:\n\\[ \\frac{(a^2 - 1)x + (ab + b)}{a} = 44 \\]",
        "unverifiable",
    ),
    (
        "olympiadbench-883",
        "Now, we need to find the angle \\( x \\) whose sine is approximately 0.3219. We can use the inverse sine function (also known as arcsine) to find this angle: \\( x \\approx \\arcsin(0.3219) \\).",
        "unverifiable",
    ),
    (
        "math-798",
        "To solve this problem, let's first understand the pattern of the sequence. The sequence starts with \\(0\\). The next term is \\(0.5\\), which is equivalent to \\(\\frac{1}{2}\\). The third term is \\(0.\\overline{6}\\), which can be written as \\(\\frac{2}{3}\\) because \\(0.\\overline{6} = \\frac{2}{3}\\). The fourth term is \\(0.75\\), which is equivalent to \\(\\frac{3}{4}\\).",
        "unverifiable",
    ),
    (
        "olympiadbench-946",
        "However, since the range of $\\sin \\theta$ is from $-1$ to $1$, we discard $\\sin \\theta = \\frac{-1 - \\sqrt{5}}{2}$ as it falls outside this range. Therefore, the only valid solution is: \\[ \\boxed{\\sin \\theta = \\frac{-1 + \\sqrt{5}}{2}} \\]",
        "unverifiable",
    ),
    (
        "omnimath-525",
        "Next, we divide the entire inequality by 2:\n\\[ -\\frac{5}{2} \\leq X \\leq \\frac{5}{2}. \\]",
        "unverifiable",
    ),
    (
        "olympiadbench-630",
        "We solve this quadratic equation using the quadratic formula \\(a = \\frac{-b \\pm \\sqrt{b^2 - 4ac}}{2a}\\), where \\(a = 1\\), \\(b = -45\\), and \\(c = 486\\):\n\\[ a = \\frac{45 \\pm \\sqrt{45^2 - 4 \\cdot 1 \\cdot 486}}{2 \\cdot 1} \\]\n\\[ a = \\frac{45 \\pm \\sqrt{2025 - 1944}}{2} \\]\n\\[ a = \\frac{45 \\pm \\sqrt{81}}{2} \\]\n\\[ a = \\frac{45 \\pm 9}{2} \\]",
        "unverifiable",
    ),
    (
        "math-681",
        "Dividing both sides by 4, we get:\n\\[\nn-1 = \\frac{80}{4} = 20\n\\]",
        "correct",
    ),
    ("gsm8k-245", "Thus, Mark makes \\(\\boxed{7500}\\) cents in a week.", "unverifiable"),
    (
        "olympiadbench-982",
        "Given that the product of all positive divisors of \\( n \\) is \\( n^4 \\), we can write:\n\\[ n^{d/2} = n^4 \\]\nBy equating the exponents, we get:\n\\[ \\frac{d}{2} = 4 \\implies d = 8 \\]\nSo, \\( n \\) must have exactly 8 divisors.",
        "unverifiable",
    ),
    (
        "olympiadbench-865",
        "First, for \\(a = -4\\): Substituting \\(a = -4\\) into the first equation: \\[ \\sin^2 x + \\cos^2 y = \\frac{3}{2}(-4) = -6 \\] Since \\(\\sin^2 x + \\cos^2 y\\) cannot be negative, \\(a = -4\\) is not a valid solution.",
        "correct",
    ),
    (
        "olympiadbench-936",
        "Initial observations:\n- Since \\( n \\) is even, let \\( n = 2m \\) for some integer \\( m \\).\n- In each minute, exactly 2 switches are flipped. Therefore, after \\( t \\) minutes, \\( 2t \\) switches will be flipped (some switches may be flipped more than once).",
        "unverifiable",
    ),
    (
        "math-879",
        "Therefore, the minimum value is:\n\\[ \\boxed{\\frac{1024}{27}}. \\]",
        "unverifiable",
    ),
    (
        "olympiadbench-740",
        "We can rewrite this sum as\n\\[\n\\sum_{j=2}^{200} \\sum_{i=1}^{j-1} (j - i) = \\sum_{j=2}^{200} \\left( (j-1) + (j-2) + \\cdots + 1 \\right) = \\sum_{j=2}^{200} \\frac{(j-1)j}{2}.\n\\]",
        "unverifiable",
    ),
    (
        "math-931",
        "Simplifying inside the square root:\n\\[ |3 - ki| = \\sqrt{9 + k^2} \\]",
        "unverifiable",
    ),
    (
        "math-903",
        "Since the heptagon is regular, each internal angle is equal. Therefore, each internal angle of the heptagon is: \\[ \\frac{900^\\circ}{7} \\]",
        "unverifiable",
    ),
    (
        "gsm8k-396",
        "Third, find the total work time by summing the time spent writing, recording, and editing. \\[ \\text{Total work time} = 240 + 120 + 90 = 450 \\text{ minutes} \\]",
        "correct",
    ),
    (
        "math-978",
        "Since $\\sqrt{32}$ simplifies to $4\\sqrt{2}$, the length of one side of the square is $4\\sqrt{2}$.",
        "unverifiable",
    ),
    (
        "olympiadbench-927",
        "We now substitute \\(r = \\sqrt{2}\\) and \\(r = -\\sqrt{2}\\) back into the equation for \\(S_4\\) to find \\(a\\).",
        "unverifiable",
    ),
    (
        "gsm8k-394",
        "Next, we calculate the depreciation for the second year:\n- Value after the first year: $6300\n- Depreciation rate: 30%\n- Depreciation amount: \\( 6300 \\times 0.30 = 1890 \\)\n- Value after the second year: \\( 6300 - 1890 = 4410 \\)",
        "correct",
    ),
    (
        "omnimath-528",
        "Now we substitute \\(x = 2y - 1\\) and \\(z = \\frac{2y + 1}{3}\\) into the first equation \\(2x + y + z + w = 1\\):\n\\[ 2(2y - 1) + y + \\frac{2y + 1}{3} + \\frac{2y + 23}{4} = 1 \\]",
        "unverifiable",
    ),
    (
        "omnimath-800",
        "If \\( c = 0 \\):\n- System 1: \\(\\left( \\frac{99 + 0}{2}, \\frac{99 - 0}{2} \\right) = (49.5, 49.5)\\)\n- System 2: \\(\\left( \\frac{99 - 0}{2}, \\frac{99 + 0}{2} \\right) = (49.5, 49.5)\\)\n- System 3: \\(\\left( \\frac{-99 + 0}{2}, \\frac{-99 - 0}{2} \\right) = (-49.5, -49.5)\\)\n- System 4: \\(\\left( \\frac{-99 - 0}{2}, \\frac{-99 + 0}{2} \\right) = (-49.5, -49.5)\\)",
        "unverifiable",
    ),
    (
        "math-709",
        "The radius \\( r \\) of the circle is half of the diameter, so: \\[ r = \\frac{d}{2} = \\frac{14}{2} = 7 \\text{ feet} \\]",
        "correct",
    ),
    (
        "math-757",
        "Multiply the simplified fractions. Multiply the numerators together and the denominators together: \\[ P(\\text{both face cards}) = \\frac{3 \\times 11}{13 \\times 51} = \\frac{33}{663} \\]",
        "correct",
    ),
    (
        "omnimath-572",
        "To solve this system of equations, we can start by simplifying and finding a relationship between the variables. The given system is:\n\\[ \\begin{align*}\nx + \\frac{1}{x^3} &= 2y, \\\\\ny + \\frac{1}{y^3} &= 2z, \\\\\nz + \\frac{1}{z^3} &= 2w, \\\\\nw + \\frac{1}{w^3} &= 2x.\n\\end{align*} \\]",
        "unverifiable",
    ),
    (
        "olympiadbench-548",
        "Remembering that \\(W = \\frac{1}{3}\\angle BAC\\), and knowing that in any triangle the sum of the angles is \\(180^\\circ\\), we have:\n\\[\\angle BAC + 2V = 180^\\circ\\]\n\\[\\angle BAC = 180^\\circ - 2V\\]",
        "unverifiable",
    ),
    ("olympiadbench-868", "Solving for \\(x\\), we find:\n\\[ x = \\sqrt{6}. \\]", "unverifiable"),
    (
        "math-907",
        "Second, find 50% of 12. \\[ 50\\% = \\frac{1}{2} \\] So, \\[ \\frac{1}{2} \\times 12 = 6 \\]",
        "correct",
    ),
    (
        "math-997",
        "Thus, the simplified common fraction equivalent to \\(0.0\\overline{57}\\) is \\(\\boxed{\\frac{19}{330}}\\).",
        "unverifiable",
    ),
    (
        "gsm8k-355",
        "First, calculate the daily cost:\n- Makeup artist's hourly rate: $250 per hour\n- Time required per day: 6 hours\n- Daily cost: $250 * 6 = $1500 per day",
        "correct",
    ),
    (
        "olympiadbench-802",
        "Ninth, for \\( k = 51 \\):\n\\[ 51(1 + (n-1) \\cdot 51) = 306 \\implies 51(1 + 51n - 51) = 306 \\implies 51(51n - 50) = 306 \\implies 51n - 50 = 6 \\implies 51n = 56 \\implies n = \\frac{56}{51}. \\]\nSince \\( n \\) is not an integer, \\( k = 51 \\) does not work.",
        "correct",
    ),
    (
        "math-642",
        "Applying this property to each term in our product, we get: \\[ \\log_2{3} = \\frac{\\log{3}}{\\log{2}}, \\quad \\log_3{4} = \\frac{\\log{4}}{\\log{3}}, \\quad \\ldots, \\quad \\log_7{8} = \\frac{\\log{8}}{\\log{7}} \\]",
        "unverifiable",
    ),
    (
        "omnimath-678",
        "The sum of the geometric series \\(10^1 + 10^2 + 10^3 + \\cdots + 10^n\\) is:\n\\[10 \\frac{10^n - 1}{10 - 1} = \\frac{10^{n+1} - 10}{9}\\]",
        "unverifiable",
    ),
    (
        "olympiadbench-740",
        "Using the formulas for the sum of the first \\(n\\) squares and the sum of the first \\(n\\) positive integers, we get\n\\[\n\\sum_{j=1}^{200} j^2 = \\frac{200 \\cdot 201 \\cdot 401}{6} = 2686700,\n\\]\n\\[\n\\sum_{j=1}^{200} j = \\frac{200 \\cdot 201}{2} = 20100.\n\\]",
        "correct",
    ),
    (
        "math-672",
        "Now we can add these two fractions to find that Chris and Nathan eat \\(\\frac{31}{35}\\) of the cookie in total. Therefore, the remaining fraction of the cookie is \\(1 - \\frac{31}{35} = \\frac{4}{35}\\).",
        "correct",
    ),
    (
        "omnimath-545",
        "Therefore, the expected value of \\( N \\) given that Annie draws the number 2 is:\n\\[ E(N \\mid \\text{Annie draws 2}) = \\frac{1}{\\ln 2 - \\frac{1}{2}} \\cdot \\frac{1}{2} = \\frac{1}{2 \\ln 2 - 1}. \\]",
        "unverifiable",
    ),
    (
        "omnimath-565",
        "The points are calculated as follows:\n\\[ \\left[ \\frac{3 + 225}{10} \\right] = \\left[ 22.8 \\right] = 22. \\]",
        "correct",
    ),
    (
        "math-696",
        "### Step 1: Find the Intersection Points\nWe start with the equations:\n\\[ 4x^2 + 11y^2 = 29 \\]\n\\[ x^2 - 6y^2 = 6 \\]",
        "unverifiable",
    ),
    (
        "olympiadbench-888",
        "The solutions to \\( \\sin 2x = -\\frac{\\sqrt{3}}{2} \\) are: \\[ 2x = \\frac{4\\pi}{3} + 2k\\pi \\quad \\text{or} \\quad 2x = \\frac{5\\pi}{3} + 2k\\pi \\quad \\text{for} \\quad k \\in \\mathbb{Z}. \\] Thus, the solutions to \\( \\sin 2x = -\\frac{\\sqrt{3}}{2} \\) are: \\[ x = \\frac{2\\pi}{3} + k\\pi \\quad \\text{or} \\quad x = \\frac{5\\pi}{6} + k\\pi \\quad \\text{for} \\quad k \\in \\mathbb{Z}. \\]",
        "unverifiable",
    ),
    (
        "omnimath-828",
        "Third, now you have the simplified form of the expression as $\\frac{340}{320}$. Simplify this fraction by dividing both the numerator and the denominator by their greatest common divisor (GCD). The GCD of 340 and 320 is 20. Divide both by 20: \\[ \\frac{340}{320} = \\frac{340/20}{320/20} = \\frac{17}{16}\\]",
        "correct",
    ),
    (
        "math-830",
        "We want to find the probability that Team A is selected on at least two of the next three days. Let's consider the complementary event: Team A is selected on at most one of the next three days.",
        "unverifiable",
    ),
    (
        "math-990",
        "First, the condition for the square root to be defined is that the expression inside the square root, \\( x-1 \\), must be greater than or equal to zero. \\[ x - 1 \\geq 0 \\implies x \\geq 1 \\]",
        "unverifiable",
    ),
    (
        "math-980",
        "Second, calculate the number of ways to form a pair. A pair consists of two cards of the same rank and one card of a different rank. There are 13 ranks in a deck, and we need to choose one rank for the pair and one different rank for the third card.",
        "unverifiable",
    ),
    (
        "gsm8k-337",
        "It will take John 2 weeks to save $80. The answer is: $\\boxed{2}$",
        "unverifiable",
    ),
    (
        "math-823",
        "There are 5 such pairs. Therefore, the number of ordered pairs \\((A, B)\\) is: \\[ \\boxed{5} \\]",
        "unverifiable",
    ),
    (
        "omnimath-536",
        "The sum of the coefficients of the square-free terms is the number of ways to select such matchings. We need to count the number of matchings in \\(K_8\\).",
        "unverifiable",
    ),
    (
        "math-790",
        "The divisors of 4 are $\\pm 1$, $\\pm 2$, and $\\pm 4$. Therefore, the possible integer roots of the polynomial are $\\boxed{-4, -2, -1, 1, 2, 4}$.",
        "unverifiable",
    ),
    ("omnimath-859", "Thus, the INPUT is \\(\\boxed{40}\\).", "unverifiable"),
    (
        "math-976",
        "Second, express the angles in terms of a variable. Let the measures of the angles be \\(3x\\), \\(5x\\), and \\(7x\\) where \\(x\\) is a common multiplier.",
        "unverifiable",
    ),
    (
        "omnimath-978",
        "Therefore, the number of different-looking arrangements possible is \\(\\boxed{15}\\).",
        "unverifiable",
    ),
    ("omnimath-680", "The final answer is: \\[ \\boxed{3, 1, 4, 0, 6} \\]", "unverifiable"),
    (
        "gsm8k-201",
        "Third, understand the reading scenario:\n- Both Dolly and Pandora will read all the books, including their own and each other's.",
        "unverifiable",
    ),
    (
        "olympiadbench-942",
        "Let's solve the first inequality: \\[ 16n \\leq 9 + 6n + n^2 \\implies n^2 - 10n + 9 \\geq 0 \\implies (n-1)(n-9) \\geq 0 \\] The solutions to this inequality are \\(n \\leq 1\\) or \\(n \\geq 9\\).",
        "unverifiable",
    ),
    (
        "math-587",
        "Since the inverse of $12 \\pmod{47}$ is $4$, the inverse of $-12 \\pmod{47}$ is also $-4 \\equiv 43 \\pmod{47}$.",
        "unverifiable",
    ),
    (
        "omnimath-608",
        "Let's break down the information: Since André starts 20 s after Carl, Carl will have run for 20 s when André starts. When André starts, the distance between them is the distance Carl covered in 20 s, which is $20x$ meters. André runs for 10 s, covering a distance of $10y$ meters. By the time André catches up to Carl, the total distance covered by both of them must be equal.",
        "unverifiable",
    ),
    # hand-picked, same sources
    (
        "gsm8k-4",
        "The customer spent $80 on their last shopping trip. For every $20 spent, they get $1 off their next purchase. First, we calculate the rewards from the last trip: $80 / $20 = 4 rewards. The value of these rewards is 4 * $1 = $4.",
        "correct",
    ),
    (
        "gsm8k-35",
        "Finally, to find the total number of fruits: \\[ \\text{Total fruits} = 52 + 24 + 44 + 48 \\]\n\\[ \\text{Total fruits} = 178 \\]",
        "incorrect",
    ),
    (
        "gsm8k-130",
        "Third, now, divide Ashley's original speed (20 kb/s) by the number of seconds in an hour (3600 s): 20 kb/s ÷ 3600 s = 0.0056 kb/s (or 5.6 kb/s).",
        "unverifiable",
    ),
    (
        "gsm8k-111",
        "Distance Oliver must climb = 10,000 - 6,000. Distance Oliver must climb = 4,000 feet.",
        "correct",
    ),
    (
        "math-14",
        "Divide 706 by 7: 706 ÷ 7 = 101 with a remainder of 1. This means that 706 days from his birth date is equivalent to adding one day to his birth day.",
        "incorrect",
    ),
    (
        "math-484",
        "Calculate \\(327 \\mod 17\\): \\[327 \\div 17 = 19 \\text{ remainder } 8,\\] so \\[327 \\equiv 8 \\pmod{17}.\\]",
        "incorrect",
    ),
    (
        "gsm8k-197",
        "Now, we can substitute the third equation (P = L + J) into this equation: (L + J) + 2J + 10 = 100. Since L = J + 10, we substitute L in the equation: ((J + 10) + J) + 2J + 10 = 100. This simplifies to 5J + 20 = 100.",
        "incorrect",
    ),
]


# Misread families found reading the flags on independent text (GSM8K/MATH train, BiRM,
# OmegaPRM, Math-Shepherd, PRM800K samples) and named in issue 10. Each family: rows that
# must not be `incorrect` (the text is right or cannot be read with certainty), and rows with
# a real error of the same shape that must still be `incorrect`. "birm-*", "math-train-*"
# and "gsm8k-train-*" rows are verbatim; "family-*" rows are written in the style of model
# chains.
FAMILIES = [
    # ordinal positions are not operands: "1st - 5 = 6th"
    (
        "family-ordinal",
        "Counting back from the 11th seat, the 11th - 5 = 6th seat is Maria's.",
        "unverifiable",
    ),
    (
        "family-ordinal",
        "The 1st - 5 = 6th term is the one we want, since the sequence runs backwards.",
        "unverifiable",
    ),
    ("family-ordinal", "So the 1st + 4 = 5th day of the week is Friday.", "unverifiable"),
    (
        "family-ordinal",
        "If Ann is the 2nd in line, the person 3 places behind her is the 2nd + 3 = 5th.",
        "unverifiable",
    ),
    (
        "family-ordinal",
        "The 3rd term is \\(2 + 2 = 4\\), and the 10th - 3 = 7th term is 14.",
        "correct",
    ),
    ("family-ordinal", "On the 3rd day she reads 2 * 15 = 30 pages.", "correct"),
    ("family-ordinal", "On the 3rd day she reads 2 * 15 = 35 pages.", "incorrect"),
    ("family-ordinal", "The $5^{th}$ term is $3 + 4 \\cdot 2 = 11$.", "correct"),
    ("family-ordinal", "The $5^{th}$ term is $3 + 4 \\cdot 2 = 14$.", "incorrect"),
    # a list of expressions in prose is not one chained equation: "1 + 2, 3 + 4 = 3, 7"
    (
        "family-list",
        "The values of \\(a + b\\) and \\(a - b\\) are 5 + 3, 5 - 3 = 8, 2 respectively.",
        "unverifiable",
    ),
    ("family-list", "The two sums are 4 + 5, 6 + 7 = 9, 13.", "unverifiable"),
    ("family-list", "So the side lengths are 3 + 1, 3 * 2 = 4, 6 and 3 - 1 = 2.", "unverifiable"),
    ("family-list", "Their ages are \\(2 \\times 4, 4 + 3 = 8, 7\\).", "unverifiable"),
    ("family-list", "We check each pair: 2 + 3 = 5, 4 + 5 = 9, 6 + 7 = 13.", "correct"),
    ("family-list", "We check each pair: 2 + 3 = 5, 4 + 5 = 10, 6 + 7 = 13.", "incorrect"),
    ("family-list", "He buys 3 + 4 = 8, 2 of which are red.", "incorrect"),
    ("family-list", "After 3 days, 3 * 5 = 16 pages are read.", "incorrect"),
    ("family-list", "Their ages are 4, 4 + 3 = 8, 7.", "unverifiable"),
    # an implicit product right after a divisor reads two ways: refuse it
    (
        "birm-qwen2.5_3b-5865-8",
        "Dividing $500\\pi$ by $\\frac{2}{3}\\pi$, we get $500\\pi\\div\\frac{2}{3}\\pi=\\frac{500\\pi}{\\frac{2}{3}\\pi}=500\\cdot\\frac{3}{2}=750$.",
        "correct",
    ),
    (
        "birm-qwen2.5_3b-5865-11",
        "The number of revolutions the back wheel makes is equal to the total distance it travels divided by its circumference, which is $(500\\pi)/(2\\pi/3)=500\\pi\\cdot3/2\\pi=750$ revolutions.",
        "unverifiable",
    ),
    (
        "family-implicit-divisor",
        "Using the order of operations, $6 \\div 2(1+2) = 1$.",
        "unverifiable",
    ),
    ("family-implicit-divisor", "The time is $12/4\\pi = 0.95$ seconds.", "unverifiable"),
    (
        "family-implicit-divisor",
        "So $\\frac{500\\pi}{\\frac{2}{3}\\pi} = 500 \\cdot \\frac{3}{2} = 760$.",
        "incorrect",
    ),
    (
        "family-implicit-divisor",
        "The wheel turns $(500\\pi)/((2/3)\\pi) = 700$ times.",
        "incorrect",
    ),
    # a slip inside a chain that comes back to the right value, with pi or roots
    (
        "birm-qwen2.5_3b-5865-1",
        "So the back wheel will make $\\frac{500\\pi}{2\\pi/3}=\\frac{500\\pi(3/2)}{2\\pi}=\\frac{500(3)}{2}=\\boxed{750}$ revolutions.",
        "correct",
    ),
    (
        "birm-qwen2.5_3b-5865-3",
        "To find how many revolutions the back wheel will make, we divide the total distance traveled by the circumference of the back wheel: $\\frac{500\\pi}{2\\pi/3}=\\frac{500\\pi}{2/3}\\pi=\\boxed{750}$ revolutions.",
        "unverifiable",
    ),
    (
        "math-train-precalculus-8007",
        "\\begin{eqnarray*} \\frac{\\sqrt{\\frac{\\frac{\\sqrt{2}}{2} + 1}{2}}}{\\sqrt{\\frac{\\frac{-\\sqrt{2}}{2} + 1}{2}}} &=& \\sqrt{\\frac{\\frac{2+\\sqrt{2}}{4}}{\\frac{2-\\sqrt{2}}{4}}} \\\\ &=& \\sqrt{\\frac{2+\\sqrt{2}}{2-\\sqrt{2}}} \\cdot \\sqrt{\\frac{2+\\sqrt{2}}{2+\\sqrt{2}}} \\\\ &=& \\sqrt{\\frac{(2+\\sqrt{2})^2}{2}} \\\\ &=& \\frac{2+\\sqrt{2}}{\\sqrt{2}} \\cdot \\sqrt{2} \\\\ &=& \\sqrt{2}+1 \\end{eqnarray*}",
        "correct",
    ),
    (
        "family-recovered-pi",
        "So the wheel makes $\\frac{500\\pi}{2\\pi/3}=\\frac{500\\pi(3/2)}{2\\pi}=375$ turns.",
        "incorrect",
    ),
    # a scale word in the step: the numbers are in thousands (or millions)
    (
        "gsm8k-train-3859",
        "In one day the shop is losing 5 thousand dollars, so during three days, the losses are 5 * 3 = $15,000.",
        "unverifiable",
    ),
    (
        "family-scale",
        "The company earns 2 million dollars a month, so in a year it earns 2 * 12 = $24,000,000.",
        "unverifiable",
    ),
    (
        "family-scale",
        "The shop loses 5 thousand dollars a day, so in 3 days 5 * 3 = $16,000.",
        "incorrect",
    ),
    ("family-scale", "It costs 5 * 3 = $15,000.", "incorrect"),
    # a display line that takes an earlier product up again is a new computation
    (
        "family-display",
        "\\[ \\text{Total cost} = 3 \\times 4 \\]\n\\[ \\text{Total cost} = 3 \\times 4 \\times 2 = 24 \\]",
        "correct",
    ),
    (
        "family-display",
        "\\[ \\text{Eggs} = 12 \\times 4 \\]\n\\[ \\text{Eggs} = 12 \\times 4 \\times 3 = 144 \\]",
        "correct",
    ),
    (
        "family-display",
        "\\[ \\text{Total} = 3 \\times 4 \\]\n\\[ \\text{Total} = 12 \\times 2 = 24 \\]",
        "correct",
    ),
    (
        "family-display",
        "\\[ \\text{Total cost} = 3 \\times 4 \\]\n\\[ \\text{Total cost} = 13 \\]",
        "incorrect",
    ),
    ("family-display", "\\[ 5 \\times 4 = 20 \\]\n\\[ = 20 \\times 3 = 60 \\]", "correct"),
    ("family-display", "\\[ 5 \\times 4 = 20 \\]\n\\[ = 20 \\times 3 = 70 \\]", "incorrect"),
    (
        "family-display",
        "The total is \\( 3 \\times 4 = 12 \\).\n\\[\n12\n\\]\n\\[\n= 12 \\times 2 = 24\n\\]",
        "correct",
    ),
    (
        "family-display",
        "Each row has \\( 6 \\times 4 = 24 \\) seats, and there are 5 rows\n\\[ = 24 \\times 5 = 120 \\]",
        "correct",
    ),
    # an equation tag or a reference after an equation is not a factor: "2x = 10 (2)"
    ("family-tag", "We have 3 + 4 = 7 (2) from the second equation.", "unverifiable"),
    ("family-tag", "The total is 3 * 4 = 12 (1)", "unverifiable"),
    ("family-tag", "Total: 3 + 4 = 7 [1]", "unverifiable"),
    ("family-tag", "Equation (2): 3 + 4 = 7", "correct"),
    ("family-tag", "Equation (2): 3 + 4 = 8", "incorrect"),
    ("family-tag", "Stan has \\( 4 (40) - 13 = 157 \\) cards.", "incorrect"),
    # residues and numbers in another base are not plain values
    ("family-notation", "So 2^10 = 4 mod 5.", "unverifiable"),
    ("family-notation", "In binary, 2 + 3 = 101 in base 2.", "unverifiable"),
    ("family-notation", "So 8 + 4 = 14 in base 8.", "unverifiable"),
    ("family-notation", "Thus 2^5 = 100000 in binary.", "unverifiable"),
    (
        "family-notation",
        "Since $3 \\cdot 5 = 15 \\equiv 1 \\pmod 7$, the inverse of 3 is 5.",
        "correct",
    ),
    ("family-notation", "So 7 * 8 = 56, which is 1 mod 5.", "correct"),
    ("family-notation", "So 7 * 8 = 54, which is 4 mod 5.", "incorrect"),
    ("family-notation", "So 2^10 = 3 mod 5.", "incorrect"),
    ("family-notation", "So 8 + 4 = 15 in base 8.", "incorrect"),
    ("family-notation", "In base 8, 17 + 1 = 20.", "unverifiable"),
    ("family-notation", "In base 8, 17 + 1 = 21.", "incorrect"),
    # a line that opens with a numbered label and a dash is a heading: "Day 3 – 5 + 2 = 7"
    ("family-label", "Day 3 – 5 + 2 = 7 apples", "unverifiable"),
    ("family-label", "**Week 2** - 4 × 5 = 20 hours", "unverifiable"),
    ("family-label", "Room 12 - 30 + 15 = 45 students", "unverifiable"),
    ("family-label", "Day 3: 5 + 2 = 7 apples", "correct"),
    ("family-label", "Day 3: 5 + 2 = 8 apples", "incorrect"),
    ("family-label", "Then 10 - 4 = 7 apples are left.", "incorrect"),
    # a generation cut at its token limit inside a display may have cut the last number
    (
        "family-truncated",
        "To find the total time spent biking a week, we add the time spent biking in the weekdays and the time spent biking in the weekend:\n\\[ 50 \\text{ minutes} + 400 \\text{ minutes} = 45",
        "unverifiable",
    ),
    ("family-truncated", "\\[ 50 \\text{ minutes} + 400 \\text{ minutes} = 450 \\]", "correct"),
    ("family-truncated", "\\[ 50 \\text{ minutes} + 400 \\text{ minutes} = 45 \\]", "incorrect"),
    ("family-truncated", "So she has $100 + $15 + $30 = $165", "incorrect"),
    # what the family fixes must not cost (MATH train and BiRM, verbatim)
    (
        "math-train-number_theory-617",
        "So the least four-digit solution is $267 + 450 (2) = \\boxed{1167}$.",
        "correct",
    ),
    ("math-train-precalculus-1030", "This gives us $2 + 8 = 10$ pairs $(a,b).$", "correct"),
    (
        "birm-llama3_8b-7073-4",
        "The remaining amount, which is $(1-3/4)x = 1/4x$, she spent on a sweater, which cost her $20.",
        "correct",
    ),
    (
        "math-train-counting_and_probability-5083",
        "There are $7 \\cdot 6 \\cdot 5 = 210$ ways to choose values of $x$, $y$ and $z$.",
        "correct",
    ),
]


def test_table_is_large_and_mixed():
    kinds = {row[2] for row in ROWS}
    assert len(ROWS) >= 150 and kinds == {"correct", "incorrect", "unverifiable"}


def test_every_family_has_a_true_error_still_flagged():
    families = {row[0] for row in FAMILIES if row[0].startswith("family-")}
    flagged = {row[0] for row in FAMILIES if row[2] == "incorrect"}
    assert families and families <= flagged


@pytest.mark.parametrize(
    ("source", "text", "expected"), ROWS + FAMILIES, ids=[r[0] for r in ROWS + FAMILIES]
)
def test_real_step(calc, source, text, expected):
    verdict = calc.check_steps([text])[0]
    assert str(verdict.status) == expected, verdict.evidence
    if expected == "incorrect":
        assert "claimed" in verdict.evidence and "true" in verdict.evidence
