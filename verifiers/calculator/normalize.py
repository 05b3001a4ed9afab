"""Step text to plain arithmetic text: LaTeX, markdown and word operators made uniform.

`normalize` is a pure, cached string function. Unknown LaTeX commands become the word
"mathop", which the extractor treats as "something we cannot read here": expressions touching
it are fragments, so a command we do not know can cost a claim but never invent one. Every
loop over nested constructs is bounded (a nesting bomb costs a dozen regex passes).
"""

from __future__ import annotations

import re
from functools import lru_cache

MAX_STEP_CHARS = 20_000  # longer steps are cut: a bound on work, not a claim about content

# --- normalising --------------------------------------------------------------------------

_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_MIXED = re.compile(r"(\d)[ \t]*\\[dt]?frac")
# "3\frac{2}{3}" with a proper fraction is a mixed number (how MATH writes 11/3); any other
# digit before \frac ("2\frac{(0+5)}{2}", "2\frac{5}{3}") may be a product: left unread.
_MIXED_PROPER = re.compile(
    r"(?<![\d.^_{])(\d+)[ \t]*\\[dt]?frac\s*\{\s*(\d+)\s*\}\s*\{\s*(\d+)\s*\}"
)
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_POW = re.compile(r"\^\s*\{([^{}]*)\}")
# "\binom{5}{2}" with whole numbers: read as the product it stands for, (5 * 4)/(2 * 1), so
# "\binom{5}{2} = 20" is checked like any product. Bounded: the shorter side of n choose k
# up to _BINOM_TERMS factors; bigger ones, and letters ("\binom{n}{2}"), stay unread.
_BINOM = re.compile(r"\\[dt]?binom\s*\{\s*(\d{1,4})\s*\}\s*\{\s*(\d{1,4})\s*\}")
_BINOM_TERMS = 12
# The same count written "C(52, 5) =", "8C2", "{}_{8}C_{2}". "C(4, 0)" is as often a point:
# read only beside "=", in a step that names no point (no other capital with a pair, no
# "point", "vertex", "coordinates").
_C_CHOOSE = re.compile(
    r"(?<![\w\\^_{])C\s*\(\s*(\d{1,4})\s*,\s*(\d{1,4})\s*\)(?=\s*=)"
    r"|(?<==)\s*C\s*\(\s*(\d{1,4})\s*,\s*(\d{1,4})\s*\)"
)
_N_C_K = re.compile(
    r"(?<![\w.])(?:\{\}_\{?(\d{1,4})\}?\s*C_\{?(\d{1,4})\}?|(\d{1,4})C(\d{1,4}))(?![\w.])"
)
_POINTS = re.compile(
    r"(?<![\w\\])[ABD-Z]\s*\(\s*-?\d|(?<![\w\\])C\s*\(\s*[A-Za-z]"
    r"|(?i:\b(?:points?|vert(?:ex|ices)|coordinates?)\b)"
)
_TEXT = re.compile(r"\\(?:text|mathrm|textbf|mbox|textit|mathbf)\s*\{([^{}]*)\}")
# `(\frac{1}{8} - ...)\text{Total Area}`: a capitalised name right after a bracket (not the
# `\)` that closes math) is a quantity multiplied, not a unit; dropped as words it would leave
# the bracket's value alone.
_NAMED_FACTOR = re.compile(
    r"(?<=[^\\]\))[ \t]*\\(?:text|mathrm)\s*\{\s*[A-Z][a-z]+(?:\s+[A-Za-z]+)*\s*\}"
)
# "\frac{7\text{ knicks}}{2\text{ knacks}} = 1": units above and below make a conversion
# factor, a statement about units; its numbers are no quotient.
_UNIT_PART = (
    r"\{(?:[^{}]|\{[^{}]*\})*?\\(?:text|mbox|mathrm|textrm)\s*\{[^{}]*[A-Za-z][^{}]*\}"
    r"(?:[^{}]|\{[^{}]*\})*\}"
)
_CONVERSION = re.compile(rf"\\[dt]?frac\s*{_UNIT_PART}\s*{_UNIT_PART}")
# `40 \mathrm{~g}`, `80 \text{ s}`: one upright letter after a number is an SI unit by
# convention (ISO 80000), but read as a letter it made its side a product. Only units whose
# letter is no common constant or notation are named: `\mathrm{e}`, `\mathrm{i}` are numbers,
# `58 \mathrm{R} 5` a remainder.
_SPACE = r"(?:\s|~|\\[,;:! ])*"
_LETTER_UNIT = re.compile(
    rf"(?<=\d){_SPACE}\\(?:mathrm|text|textrm|mbox)\s*\{{{_SPACE}([gmshL]){_SPACE}\}}"
)
_UNIT_NAMES = {"g": "grams", "m": "meters", "s": "seconds", "h": "hours", "L": "liters"}
_OPERATORNAME = re.compile(r"\\operatorname\s*\*?\s*\{[^{}]*\}")  # cis, lcm: a function
# In LaTeX math, letters touching \sqrt, \pi or a fraction are factors ("AC\sqrt{3}",
# "\pi ab", "\frac 12 bh"), but as words they would pass for units and drop out of the side.
# (A single letter is an unknown or an untracked letter already: "\frac38x" is read.)
_LETTERS_BEFORE = re.compile(r"(?<![\\A-Za-z])([A-Za-z]{2,3})[ \t]*(?=\\(?:sqrt|pi)(?![A-Za-z]))")
_LETTERS_AFTER = re.compile(
    r"(\\pi(?![A-Za-z])|\\[dt]?frac\s*(?:\{[^{}]*\}\s*\{[^{}]*\}|\d\s*\d))[ \t]*"
    r"(?=([A-Za-z]{2,3})(?![A-Za-z]))"
)
_PROSE = frozenset("and or of is the to in for as so by at if per are was we it".split())
# "4054.\overline{054}": a repeating decimal; read as "4054." it would end the clause there.
_REPEATING = re.compile(r"(?<=\d)\.?(?=\s*\\(?:overline|dot|bar)(?![A-Za-z]))")
# "(\frac{3}{2})^24" is (3/2)^2 * 4 in LaTeX but 2^24 in plain text: in LaTeX, left unread.
_BARE_POWER = re.compile(r"(?<=\^)(\d)(?=\d)")
_LATEX = re.compile(r"\\[A-Za-z(\[]|\$[^\d\s]")
# In LaTeX, "1:2:7" is a ratio; "Step 1: 3 + 4" has a space after ":". Plain text keeps its
# labels ("Day 4:2(50+100)=300").
_RATIO = re.compile(r"(?<=[\d)])[ \t]*:(?=\d|\()(?!\d\d(?!\d))")  # "3:15 pm" stays a time
# "$1:(3+1) = 1:4$" is math without a command; "$10, the ratio 2:3 and $4" is two prices.
_DOLLARS = re.compile(r"(?<![$\\])\$(?!\$)[^$\n]{1,300}?(?<!\\)\$")
_WORD = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{3,}")
# An align row that opens with an operator goes on with the row before ("\\ &\qquad+ (80+7)"),
# as does one after a row that ends with one ("... + \\ & \binom42 ..."): both edges become
# fragments; joining the rows could invent an expression.
_ROW_GOES_ON = re.compile(
    r"\\\\\s*&\s*(?:\\q?quad\s*)*(?=[-+]|\\(?:cdot|times|div)(?![A-Za-z]))"
    r"|(?:[-+]|\\(?:cdot|times|div)(?![A-Za-z]))\s*\\\\(?!\\)\s*&?"
)
# "1011_2", "3.5_{10}": a numeral in the base its subscript names, read as its value when
# every digit is one of that base ("15_5" is not a numeral: it stays unread).
_NUMERAL = re.compile(
    r"(?<![\w.^])(\d{1,30})(?:\.(\d{1,12}))?\s*_\s*(?:\{\s*(\d{1,2})\s*\}|(\d)(?!\d))"
)
# What `_numeral` writes for a numeral not in base ten: `(2 * 3^2 + 1 * 3^1 + 2 * 3^0)`.
NUMERAL_WRITTEN = re.compile(r"\(\d \* (\d+)\^\d+(?: \+ \d \* \1\^\d+)*(?: \+ \d / \1\^\d+)*\)")
_SUB = re.compile(r"(?:\d{1,12}(?=_)|[A-Za-z)]{1,30})?\s*_(?:\{[^{}]{0,30}\}|[A-Za-z0-9])")
_UNKNOWN_COMMAND = re.compile(r"\\[A-Za-z]+")
_TIME = re.compile(r"\d{1,2}:\d{2}(?!\d)")
# "lcm(100,120)", "point (1,200)": arguments or coordinates, not one number; "((10,000)/(200))"
# from \frac{10{,}000}{200} has no word before its bracket and keeps its thousands.
_PAIR = re.compile(r"(?<=[A-Za-z])(\s*\(\s*\d+(?:\.\d+)?\s*),(?=\s*\d+(?:\.\d+)?\s*\))")
_THOUSANDS = re.compile(r"(?<![\d,.])\d{1,3}(?:,\d{3})+(?!\d)(?!,\d)")
_BAD_COMMA = re.compile(r"(?<=\d),(?=\d)")
_RANGE = re.compile(r"(?<=[A-Za-z] )(\d{1,4})-(?=\d{1,4}\b)")
# "355/6 = 58 R 5": quotient and remainder, not a product with an unknown R.
_REMAINDER_R = re.compile(r"(?<=\d)[ \t]*R[ \t]*(?=\d)|(?<=\d)[ \t]+r[ \t]+(?=\d)")
# "2x = 10 (2)", "3 + 4 = 7 [1]": after a space, a small whole number in brackets that ends
# an equation is an equation tag or a reference as often as a factor; read as neither.
# Before an operator or "=" it is a factor ("450 (2) = 900").
_TAG = re.compile(r"(?<=[\w)\]])[ \t]+[(\[][ \t]*\d{1,2}[ \t]*[)\]](?![ \t]*[-+*/^(\[\d=])")
# "Day 3 – 5 + 2 = 7", "Room 12 - 30 + 15 = 45": a line that opens with a numbered label and a
# dash is a heading; the label's number is no operand ("code" stops the expression).
_LABELS = (
    "Day|Week|Month|Year|Step|Stage|Phase|Part|Chapter|Section|Question|Problem|Case|Round"
    "|Level|Room|Page|Row|Column|Table|Figure|Game|Match|Test|Trip|Box|Bag|Group|Team|Option"
    "|Method|Scenario|Store|Shelf|Floor|Class|Grade|Plan|Package|Account|Item|Task|Hour"
)
_LABEL_DASH = re.compile(rf"^([ \t]*(?:{_LABELS})[ \t]+)\d{{1,4}}(?=[ \t]+-[ \t])", re.M)
_BULLET = re.compile(r"^[ \t]*(?:[-*•]|\d{1,3}[.)])[ \t]+", re.M)
# A list run into one line: "we evaluate: - \(8 \times 10^5\) is ... . - \(4 \times ...":
# a dash outside the math after a colon or a sentence's end marks an item, not a minus sign
# (a negative value is written inside the math).
_INLINE_BULLET = re.compile(r"(?<=[:.;])[ \t]+-[ \t]+(?=\\\(|\$)")
_SPACED_X = re.compile(
    r"(?:(?<=\d)[ \t]*[xX][ \t]*|(?<=[a-z])[ \t]+x[ \t]+)(?=\$?[ \t]*\d)"
)  # "0.2 x 50", "1 skirt x $8.00"
_WORD_OPS = (
    (re.compile(r"(?<=[\d)%])\s+(?:times|multiplied by)\s+(?=\$?\d)"), " * "),
    (re.compile(r"(?<=[\d)%])\s+divided by\s+(?=\$?\d)"), " / "),
    (re.compile(r"(?<=[\d)%])\s+plus\s+(?=\$?\d)"), " + "),
    (re.compile(r"(?<=[\d)%])\s+minus\s+(?=\$?\d)"), " - "),
    (re.compile(r"%\s+of\s+(?=\$?\d)"), "% * "),
)
# "8 \times 10^5 is equal to 8,000,000": the relation in words, between two numbers; not
# after a lone fraction, which names a part of something ("3/4 is equal to $15").
_WORD_EQUALS = re.compile(r"(?<=[\d)])\s+(?:is\s+)?(?:equal\s+to|equals)\s+(?=\$?\d)")
_LONE_FRACTION = re.compile(r"(?:^|[^\d.)*/+\-^\s])\s*\d+(?:\.\d+)?\s*/\s*\d+(?:\.\d+)?$")
_REPLACE = (
    ("\\left", ""),
    ("\\boxed", " "),
    ("\\&", " mathop "),  # "\&(12\&)", "\#(14)": defined operations
    ("\\|", " mathop "),  # a norm's bars (`\frac{1}{2} \| u \times v \|`): nothing read through
    ("‖", " mathop "),
    ("±", " mathop "),  # "x = -4 ± 12 / 2": two values, as \pm
    ("∓", " mathop "),
    ("\\#", " mathop "),
    ("&", " "),
    ("\\right", ""),
    ("\\displaystyle", ""),
    ("**", ""),
    ("__", ""),
    ("\\times", "*"),
    ("\\cdot", "*"),
    ("\\ast", " mathop "),  # a defined operation in MATH ("5 \ast 2"); products use \cdot
    ("×", "*"),
    ("·", "*"),
    ("∙", "*"),
    ("⋅", "*"),
    ("\\div", "/"),
    ("÷", "/"),
    ("−", "-"),
    ("–", "-"),
    ("\\%", "%"),
    ("\\$", " "),
    ("$$", "\n"),  # a display ends: "$$AD^2=289=17^2$$ $$AD=17$$" are two chains
    ("$", " "),
    ("{,}", ","),
    ("\\,", " "),
    ("\\;", " "),
    ("\\!", ""),
    ("\\qquad", " ; "),  # spacing between formulas: "\frac{20}{3} = 6\frac23 \qquad \frac63 = 2"
    ("\\quad", " ; "),
    ("~", " "),
    ("\\ ", " "),
    ("\\[", "\n"),
    ("\\]", "\n"),
    ("\\(", " "),
    ("\\)", " "),
    ("<<", "\n"),
    (">>", "\n"),
    ("==", "="),
    ("\\approx", " ≈ "),
    ("\\thickapprox", " ≈ "),
    ("\\simeq", " ≈ "),
    ("≃", " ≈ "),
    ("\\sim", " ≈ "),
    ("=>", " ; "),
    ("^\\circ", " deg "),
    ("^{\\circ}", " deg "),
    ("°", " deg "),
    ("²", "^2"),
    ("³", "^3"),
    ("\\pi", " pi "),
    ("π", " pi "),
    ("\\infty", " infinity "),
    ("\\cdots", " … "),
    ("\\ldots", " … "),
    ("\\dots", " … "),
    ("...", " … "),
    ("\\{", " ; "),
    ("\\}", " ; "),
)
_SEP_COMMANDS = re.compile(
    r"\\(?:Rightarrow|Leftarrow|implies|iff|Longrightarrow|Leftrightarrow|rightarrow|to"
    r"|leq|geq|le|ge|lt|gt|in|subset|subseteq|begin|end|hline|cr)(?![A-Za-z])"
)
# An environment's name goes with its command: the star of `\begin{align*}` is no product
# with the row after it (it made the row's first number a fragment).
_ENVIRONMENT = re.compile(r"\\(?:begin|end)\s*\{[A-Za-z]+\*?\}")


# The end of an environment of rows is a line's end; a matrix's (`\end{vmatrix} = ...`) is
# not, and its last row is no member of the chain after it.
_ROWS_END = re.compile(r"\\end\s*\{(?:align|aligned|equation|gather|eqnarray|split)\*?\}")


def _environment_edge(m: re.Match) -> str:
    return " \n " if _ROWS_END.match(m[0]) else " ; "


# Operators we do not evaluate: they become the word "mathop", which stops an expression
# and makes the number after it a fragment ("\cos 60^\circ = 1/2" is no claim about 60).
_OP_COMMANDS = re.compile(
    r"\\(?:pmod|bmod|mod|cup|cap|pm|mp|lfloor|rfloor|lceil|rceil|overline|binom|dbinom|choose"
    r"|sum|prod|int|lim|log|ln|exp|sin|cos|tan|cot|sec|csc|arcsin|arccos|arctan|sqrt|vec|angle"
    r"|triangle|max|min|gcd|lcm|det|deg|hat|bar|tilde|mathbf|mathbb|mathcal|operatorname)"
    r"(?![A-Za-z])"
)
_LINEBREAK = re.compile(r"\\\\")
# An Asymptote figure (`[asy] ... r[1] = 1; r[2] = 0.8; ... [/asy]`) is drawing code, never a claim.
_ASY = re.compile(r"\[asy\].*?\[/asy\]", re.S | re.I)
# A letter indexed by brackets (`r[2] = 0.8`, drawing code cut from its figure) names a
# quantity of its own, not the letter times a number.
_INDEXED = re.compile(r"(?<![A-Za-z\\])([A-Za-z])\[(?=\s*\d+\s*\])")
# Math written over two lines (`$7\\cdot 6\\cdot` / `5\\cdot 4 = 840$`, a display whose sum goes
# on past a newline): in LaTeX the newline is a space (`\\\\` breaks a line). Inline math only
# with a command in it: a `$` may be a currency sign.
_INLINE_MATH = re.compile(r"(?<![$\\])\$(?!\$)[^$]*?\\[A-Za-z][^$]*?(?<!\\)\$(?!\$)")
_DISPLAY_MATH = re.compile(
    r"\\\[.*?\\\]|\$\$.*?\$\$|\\\(.*?\\\)"
    r"|\\begin\{(align|aligned|equation|gather|eqnarray|split)\*?\}.*?\\end\{\1\*?\}",
    re.S,
)


# A newline inside math that an operator ends or begins: the expression goes on.
_GOES_ON = re.compile(
    r"(?:[=+\-*/(]|\\(?:cdot|times|div|pm)|\\log_\{[^{}]*\})[ \t]*\n(?!\s*\n)"
    r"|\n[ \t]*(?=[=+\-*/)]|\\(?:cdot|times))"
)


def _one_line(m: re.Match[str]) -> str:
    body = m.group()
    if "\n" not in body or "\n\n" in body:
        return body
    return _GOES_ON.sub(lambda g: g.group().replace("\n", " "), body)

# "\pmod{17}" stays unreadable (mathop) but says which operation it is: "= 1 \pmod{17}" ends a
# chain whose "=" means congruent (`excuses.py` reads the word).
# "!5" (not glued to a number or a bracket before it) is a subfactorial, the derangements of 5:
# read as "5" it would make "!5 \times 6 = 264" claim 30 = 264.
_SUBFACTORIAL = re.compile(r"(?<![\w)\]}!\\])!(?=\s*\d)")  # after "\!" (a space) is gone
_MOD_COMMAND = re.compile(r"\\[pb]?mod(?![A-Za-z])")
# Two inline formulas side by side, or a dash between them ("- \(x = -15\) - \(x = -12\)"):
# separate formulas (a list, alternatives), never one expression. "$a$ $b$" the same.
_MATH_GAP = re.compile(r"\\\)[ \t]*(?:[-–•][ \t]*)?\\\(|(?<!\$)\$[ \t]+\$(?!\$)")
# "\neq", "≠": a relation the tested-claim checks read (`excuses.py`); it joins no chain.
_NEQ = re.compile(r"\\(?:neq|ne)(?![A-Za-z])|\\not\s*=|≠")
# "\equiv", "≡": a congruence; a chain that goes on with it may use "=" for congruent too.
_EQUIV = re.compile(r"\\equiv(?![A-Za-z])|≡")
# A bullet list run into one line: "x = -15 - x = -12 - x = -9" is three values of x, not a
# chain (the "- x" opens the next item). Only a bare number between two "x =" of one letter.
_FLAT_LIST = re.compile(
    r"(?<![A-Za-z_])([A-Za-z])[ \t]*=[ \t]*(-?[ \t]*\d+(?:\.\d+)?)[ \t]+-[ \t]+(?=\1[ \t]*=)"
)


def _mixed(m: re.Match[str]) -> str:
    whole, num, den = m.groups()
    if 0 < int(num) < int(den):
        return f" ({whole}+{num}/{den}) "
    return m.group()


def _latex_products(s: str) -> str:
    """Mark LaTeX constructs whose letters or digits we must not read as units or numbers."""
    if not _LATEX.search(s):
        return s
    s = _LETTERS_BEFORE.sub(
        lambda m: m.group() if m.group(1).lower() in _PROSE else f"{m.group(1)} mathop ", s
    )
    s = _LETTERS_AFTER.sub(
        lambda m: m.group() if m.group(2).lower() in _PROSE else f"{m.group(1)} mathop ", s
    )
    s = _REPEATING.sub(" mathop ", s)
    s = _RATIO.sub(" ratio ", s)
    return _BARE_POWER.sub(r"\1 mathop ", s)


def _binom(m: re.Match[str]) -> str:
    n, k = (int(g) for g in m.groups() if g is not None)
    k = min(k, n - k)
    if k < 0 or k > _BINOM_TERMS:
        return m.group()  # k > n, or too long a product: left unread (mathop)
    if k == 0:
        return "((1)/(1))"
    top = " * ".join(str(n - i) for i in range(k))
    bottom = " * ".join(str(k - i) for i in range(k))
    return f"(({top})/({bottom}))"


def _numeral(m: re.Match[str]) -> str:
    """A numeral in base b written out as its digits' sum (`1011_2`: `(1 * 2^3 + 0 * 2^2 + 1 *
    2^1 + 1 * 2^0)`), so a link claims what it is worth ("1011_2 = 13" is false); in base
    ten, its digits."""
    whole, point, base = m[1], m[2] or "", int(m[3] or m[4])
    digits = whole + point
    if not 2 <= base <= 10 or len(digits) > 12 or any(int(d) >= base for d in digits):
        return m.group()
    if base == 10:
        return f" {whole}.{point} " if point else f" {whole} "
    terms = [f"{d} * {base}^{len(whole) - 1 - k}" for k, d in enumerate(whole)]
    terms += [f"{d} / {base}^{k + 1}" for k, d in enumerate(point)]
    return f" ({' + '.join(terms)}) "


@lru_cache(maxsize=16384)
def normalize(text: str) -> str:
    """Plain-text arithmetic from LaTeX/markdown. Unknown commands survive as words."""
    s = _INDEXED.sub(r"\1 mathop [", _ASY.sub(" ", text[:MAX_STEP_CHARS]))
    s = _DISPLAY_MATH.sub(_one_line, _INLINE_MATH.sub(_one_line, s))
    s = _latex_products(_DOLLARS.sub(
        lambda m: m.group() if _WORD.search(m.group()) else _RATIO.sub(" ratio ", m.group()), s
    ))
    s = _ROW_GOES_ON.sub(" … ", s)  # the rows' edges are fragments: we do not join them
    s = _LINEBREAK.sub("\n", s)
    s = _MATH_GAP.sub("\n", s)
    s = _NEQ.sub(" ≠ ", s)
    s = _EQUIV.sub(" ≡ ", s)
    s = _INLINE_BULLET.sub(" ", _BULLET.sub(" ", s))
    for old, new in _REPLACE:
        if old in s:
            s = s.replace(old, new)
    s = _SUBFACTORIAL.sub(" mathop ", s)
    s = _LABEL_DASH.sub(r"\1 code ", s)
    s = _MIXED_PROPER.sub(_mixed, s)
    s = _MIXED.sub(r"\1 mixednumber \\frac", s)  # "2\frac{5}{3}": mixed number or product?
    s = _OPERATORNAME.sub(" mathop ", s)
    s = _CONVERSION.sub(" mathop ", s)
    s = _LETTER_UNIT.sub(lambda m: " " + _UNIT_NAMES[m.group(1)] + " ", s)
    s = _TEXT.sub(r" \1 ", _NAMED_FACTOR.sub(" mathop ", s))
    s = _BINOM.sub(_binom, _N_C_K.sub(_binom, s))
    if not _POINTS.search(s):
        s = _C_CHOOSE.sub(_binom, s)
    for _ in range(12):  # innermost first, all three together: \frac{\sqrt{2}}{2^{3}}
        new = _POW.sub(r"^(\1)", _SQRT.sub(r" sqrt(\1)", _FRAC.sub(r"((\1)/(\2))", s)))
        if new == s:
            break
        s = new
    # The end of an environment of rows is a line's: a display that opens with `=` after
    # `\end{aligned}` goes on with its chain ("\] \[ = 7 * 27", `tokens`), as after any.
    s = _SEP_COMMANDS.sub(" ; ", _ENVIRONMENT.sub(_environment_edge, s))
    s = _MOD_COMMAND.sub(" mathop modulo ", s)
    s = _OP_COMMANDS.sub(" mathop", s)  # a sqrt left here had an index ([3]) we do not read
    s = _UNKNOWN_COMMAND.sub(" mathop", s)  # \cancel, \overbrace...: nothing we can read
    s = _NUMERAL.sub(_numeral, s)
    s = _SUB.sub(" subscripted ", s)
    s = _TIME.sub(" clocktime ", s)
    s = _PAIR.sub(r"\1 commanum ", s)
    s = _THOUSANDS.sub(lambda m: m.group().replace(",", ""), s)
    s = _BAD_COMMA.sub(" commanum ", s)  # "16,0000", "(1,2)": not one number
    s = _RANGE.sub(r"\1 to ", s)  # "Weeks 1-2": a range of labels, not a subtraction
    s = _SPACED_X.sub(" * ", s)
    s = _REMAINDER_R.sub(" remainder ", s)
    for pattern, repl in _WORD_OPS:
        s = pattern.sub(repl, s)
    s = _WORD_EQUALS.sub(  # (the words just before, not the whole step: bounded work)
        lambda m: m.group() if _LONE_FRACTION.search(s[max(0, m.start() - 40) : m.start()])
        else " = ", s,
    )
    s = _TAG.sub(" mathop ", s)
    for _ in range(20):  # one item per pass; bounded like every loop here
        new = _FLAT_LIST.sub(r"\1 = \2\n", s)
        if new == s:
            break
        s = new
    return s.replace("{", " ").replace("}", " ")
