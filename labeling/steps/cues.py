"""The cue words of reasoning moves at the start of a paragraph, per language. Pure data + two
functions.

A reasoning trace changes course at the start of a paragraph: a new attempt or strategy
("Alternatively", "Let me try another approach", 换个思路), a check ("Let me verify", 验证一下),
a correction ("Wait, that's wrong", 等等，不对), a conclusion ("So the answer is", 综上), or a new
part of the work (a heading, "Case 2", "Now,", 首先). `cue(paragraph)` names the move a
paragraph opens with and how strongly it marks a new section (`Cue.strength`: 3 strong, 2
medium, 1 weak); `closure(paragraph)` says how fully it ends a thought (it draws a result:
"So ...", 所以; or it states an answer: `\\boxed`). `labeling.steps.sections` turns both into
how strongly the reasoning turns at each paragraph. English and Chinese are covered (the
languages R1-style models think in); a paragraph in another language has no cue and is cut by
the budget alone.

What this promises: `cue` is a pure function of the paragraph's first 80 characters, `closure`
of the paragraph, the same on every machine (the tables below are the whole rule;
`CUES_VERSION` goes into the manifest). What it does not: understand the text; a cue word
used in another sense ("Wait times are ...") still counts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

CUES_VERSION = "2"  # bump when the tables change: the manifest records which cut a run used


class Move(StrEnum):
    """The reasoning move a paragraph opens with."""

    correction = "correction"  # a slip noticed: "Wait, ...", 不对
    attempt = "attempt"  # a new attempt or strategy: "Alternatively", 换个思路
    check = "check"  # a verification: "Let me double-check", 验证一下
    conclusion = "conclusion"  # a result drawn: "So the answer is", 综上
    part = "part"  # a new part of the work: a heading, "Case 2:", "Now,", 首先
    transition = "transition"  # a weak turn: "So,", "Then", "Okay", 那么


@dataclass(frozen=True, slots=True)
class Cue:
    move: Move
    strength: int
    language: str  # "en" | "zh"


# Leading decoration that is not a word: markdown emphasis, quotes, bullets of emphasis.
_LEAD = re.compile(r"^[\s>*_#`\"'“‘(\[]*")

# (move, strength, pattern) in the order they are tried: the first match decides. English
# patterns see the paragraph's start lower-cased, with an optional "but"/"and"/"okay," first.
_EN_OPENER = r"(?:(?:but|and|okay|ok|alright|hmm+|well|oh|so|now)[,.!]?\s+)?"
_EN: tuple[tuple[Move, int, str], ...] = (
    # A correction mostly fixes a detail of the thought in progress ("Wait, 2^1 = 2 mod 3"):
    # medium, below an explicit new strategy, a check or a new part, which open a new sub-goal.
    (Move.correction, 2,
     r"(?:wait|hold on|hang on|oops|uh[- ]oh|whoops)\b"
     r"|no[,.!]\s+(?:wait|that|this|it)\b"
     r"|actually[,]?\s+(?:no|that|this|it|i|wait|we)\b"
     r"|(?:that|this|it)(?:'s| is| was)\s+(?:not right|wrong|incorrect|a mistake)"
     r"|(?:i|we)\s+(?:think i\s+)?(?:made|have made|must have made)\s+(?:a|an)\s+"
     r"(?:mistake|error)"
     r"|(?:that|this)\s+(?:can(?:'|no)t|cannot|doesn'?t|does not)\s+(?:be right|be correct|"
     r"make sense|work)"
     r"|(?:let me|i need to|i should)\s+(?:correct|fix|redo)\b"
     r"|(?:mistake|correction|contradiction)\b"),
    (Move.attempt, 3,
     r"alternatively\b|instead[,]?\s"
     r"|(?:another|a different|a better|an alternative|a new|a simpler|a cleaner|a smarter)"
     r"\s+(?:approach|way|idea|method|strategy|angle|thought|plan)"
     r"|(?:let me|let's|let us|i'll|i will|i should|i could|i need to|i might|we could|"
     r"we should|maybe i should|perhaps i should|maybe i can|perhaps i can|maybe we|maybe|"
     r"perhaps)\s+(?:try|approach|think (?:differently|again|of another|about another)|"
     r"reconsider|rethink|re-?think|go back|start over|step back|look at (?:it|this|the "
     r"problem) (?:differently|another way|from))"
     r"|on second thought|let me start over|starting over|a different strategy"
     r"|i need a (?:better|different|new|smarter)\b"
     r"|not sure (?:if|whether|that|how) (?:this|that|it)"
     r"|(?:this|that|it)\s+(?:seems|is|might|may|doesn'?t|does not|isn'?t|is not|is getting)"
     r"\s+(?:to be\s+)?(?:too |not |getting |a bit |quite |very )?(?:complicated|complex|"
     r"vague|messy|tedious|confusing|working|helpful|leading|lead|going anywhere|a dead end|"
     r"broad|tough|hard|difficult)"),
    (Move.check, 3,
     r"(?:let me|let's|let us|i'll|i should|i need to|i want to|we should|we need to|"
     r"i can)\s+(?:also\s+)?(?:check|verify|double[- ]?check|confirm|recheck|re-?verify|"
     r"re-?examine|make sure|test|validate|sanity[- ]check|see if|plug)"
     r"|(?:to|just to)\s+(?:check|verify|confirm|double[- ]?check|be sure|make sure)"
     r"|(?:double[- ]?check|verification|verifying|checking|sanity check)\b"
     r"|(?:is|does) (?:that|this) (?:right|correct|make sense|hold|work)"),
    (Move.conclusion, 2,
     r"(?:in conclusion|to (?:summarize|sum up|conclude|recap)|in summary|summary|overall"
     r"|putting (?:it|this|everything) (?:all )?together|summari[sz]ing|final answer"
     r"|the (?:final )?answer is)\b"
     r"|(?:so|thus|therefore|hence)[,]?\s+(?:the (?:final )?answer|the (?:total|result)|in "
     r"total|finally|overall|to summarize|putting|after all)"),
    (Move.part, 3,
     r"#{1,6}\s|\*\*[^*\n]{1,60}\*\*:?\s*$"
     r"|(?:step|case|part|method|approach|scenario|subcase|option|stage)\s*[\dA-Za-z]?\d*"
     r"\s*[:.)]"
     r"|(?:first|second|third|fourth|fifth|next|last|final|another) (?:case|step|part|"
     r"approach|method|scenario|possibility|subcase)\b"
     r"|\d{1,2}[.)]\s|moving on\b|next[,:]|first(?:ly)?[,:]|second(?:ly)?[,:]|finally[,:]"
     r"|now[,:]?\s+(?:let's|let me|let us|we|i|for|consider|suppose|compute|calculate|"
     r"to|that|the)\b|now[,:]"),
    # A hedge ("Maybe I can ...", "Perhaps we should ...") is how R1-style models say most
    # things: a possible new idea, weaker than an explicit change of strategy above.
    (Move.attempt, 2, r"(?:maybe|perhaps)\s+(?:i|we)\s+(?:can|could|should|need|am|are)\b"),
    (Move.transition, 1,
     r"(?:so|then|thus|therefore|hence|okay|ok|alright|all right|well|hmm+|let me|let's|"
     r"let us|given|since|also|but|however)\b"),
)

# Chinese patterns see the paragraph's start as written (no case, no word boundaries).
_ZH_OPENER = r"(?:(?:嗯|哦|好|好的|那|但是|不过|可是)[，,。！!]?)?"
_ZH: tuple[tuple[Move, int, str], ...] = (
    (Move.correction, 3,
     r"等等|等一下|等下|不对|错了|不，|不,|有问题|这不对|这不可能|(?:我)?(?:好像|可能|似乎)?"
     r"(?:算|弄|搞|想)错了|其实不|更正|纠正|矛盾"),
    (Move.attempt, 3,
     r"或者|换(?:个|一个|一种)(?:思路|方法|角度|方式)|另(?:一种|一个|外一种)(?:方法|思路|角度|"
     r"办法)|(?:让我|我|我们)?(?:再)?(?:试试|尝试|试一下|换一下)|也许(?:我|可以|应该)|或许|"
     r"重新(?:考虑|思考|开始|想)|回到|这(?:样|个方法|种方法|条路)?(?:似乎|好像)?(?:太复杂|行不通|不行)"),
    (Move.check, 3,
     r"(?:让我|我|我们|再)?(?:再)?(?:检查|验证|核对|确认|复查|验算)|(?:看看|看一下)(?:是否|对不对)"),
    (Move.conclusion, 2, r"所以|因此|综上|总结|总之|最终|最后[，,]|由此可见|于是|答案是"),
    (Move.part, 3,
     r"首先|其次|第[一二三四五六七八九十\d]+(?:步|种|个|部分|种情况)?|情况[一二三四五六七八九十\d]|"
     r"接下来|然后|下面|现在|#{1,6}\s|\d{1,2}[.)、]"),
    (Move.transition, 1, r"好的|那么|嗯|好，|那|另外|而且|还有"),
)

_COMPILED = tuple(
    (move, strength, lang, re.compile(opener + f"(?:{pattern})"))
    for lang, opener, table in (("en", _EN_OPENER, _EN), ("zh", _ZH_OPENER, _ZH))
    for move, strength, pattern in table
)
_HAN = re.compile(r"[\u4e00-\u9fff]")
# A paragraph that draws a result ("So x = 3.", "Therefore n = 4 is bad.", 所以): the thought
# it ends is closed, and the paragraph after it is where a new one can start.
_CLOSING = re.compile(_EN_OPENER + r"(?:so|thus|therefore|hence)\b|" + _ZH_OPENER
                      + r"(?:所以|因此|综上|于是|由此可见|最终)")
# An answer stated anywhere in a paragraph also ends a thought: what follows checks it or
# starts over.
_ANSWERED = re.compile(r"\\boxed|\\fbox|final answer|the answer is|答案是", re.I)


def cue(paragraph: str) -> Cue | None:
    """The reasoning move `paragraph` opens with, or None (see the module docstring)."""
    head = _LEAD.sub("", paragraph[:80])
    if not head:
        return None
    lang = "zh" if _HAN.match(head) else "en"
    probe = head.lower() if lang == "en" else head
    for move, strength, language, pattern in _COMPILED:
        if language == lang and pattern.match(probe):
            return Cue(move, strength, language)
    return None


def closure(paragraph: str) -> int:
    """How fully `paragraph` ends a thought: 2 when it states an answer anywhere (`\\boxed`,
    "the answer is", 答案是: what follows checks it or starts over), 1 when it opens by drawing
    a result (a conclusion cue, or "so", "thus", "therefore", "hence", 所以, 因此, ...), else 0."""
    if _ANSWERED.search(paragraph):
        return 2
    head = _LEAD.sub("", paragraph[:80])
    found = cue(head)
    return int((found is not None and found.move == Move.conclusion)
               or bool(_CLOSING.match(head.lower())))


__all__ = ["CUES_VERSION", "Cue", "Move", "closure", "cue"]
