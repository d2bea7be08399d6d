"""A memory's words, each with its kind (a word and its lemma, a value, a name, a verb,
a function word, a negator, the user, a pronoun), and the lexicon's classes of
predicate they are read against (curation.detection.reading.clause builds a reading on them).

Lemmas come from simplemma (English, German, French), Chinese words from jieba's
dictionary, values (numbers, quantities, dates) and names from curation.detection.
keytokens; the words of one value are one token. Pure functions of text, cached: a
store's words repeat from memory to memory, and each is worked out once a process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import NamedTuple

from memadmin.curation.detection.reading import keytokens, neighbours, quantities, rates
from memadmin.curation.detection.reading.tokens import (
    CHINESE_WEEKDAY,
    CLAUSE_WORD,
    EMAIL,
    bare_possessive,
)
from memadmin.store.lexicon import HAN, LEMMATISED, fold, lexicon, stop_words, words
from memadmin.store.text import text_cache

# --- The lexicon, indexed -------------------------------------------------------------------


@dataclass(frozen=True)
class PredicateClass:
    name: str
    slot: str = ""  # one | many | "" (not a slot of its own)
    changes: bool = False  # a new value updates the old one
    sets: str = ""  # the class an event of this class gives a new value ("*": any)
    stance: int = 0  # +1 liking, -1 disliking
    preps: frozenset[str] = frozenset()  # the words that must follow it (when given)
    needs_subject: bool = False  # only said of a named thing ("CI runs on ...")
    valued: bool = False  # its words are its values ("single" / "married")
    fixed: bool = False  # no "switched" or "rescheduled" sets it (a name, a birthday)


@cache
def classes() -> tuple[dict[str, PredicateClass], dict[str, PredicateClass], list]:
    """(word -> class, noun -> class, [(phrase, class)]) for every predicate class."""
    by_word: dict[str, PredicateClass] = {}
    by_noun: dict[str, PredicateClass] = {}
    phrases = []
    for name, entry in lexicon()["predicates"].items():
        found = PredicateClass(
            entry.get("as", name),
            entry.get("slot", ""),
            entry.get("changes", False),
            entry.get("sets", ""),
            entry.get("stance", 0),
            frozenset(entry.get("preps", [])),
            entry.get("needs_subject", False),
            entry.get("valued", False),
            entry.get("fixed", False),
        )
        for word in entry.get("words", []):
            by_word.setdefault(word, found)
        for noun in entry.get("nouns", []):
            by_noun.setdefault(noun, found)
        phrases.extend((phrase, found) for phrase in entry.get("phrases", []))
    return by_word, by_noun, phrases


def class_of_word(word: str) -> PredicateClass | None:
    return classes()[0].get(word)


def is_copula(token: Token) -> bool:
    """ "is", "ist", "est", "是": a word of the class `be`."""
    found = class_of(token)
    return found is not None and found.name == "be"


def class_of(token: Token) -> PredicateClass | None:
    """The class of predicate a word belongs to, or None."""
    by_word = classes()[0]
    return by_word.get(token.lemma) or by_word.get(token.text)


def predicate_class(name: str) -> PredicateClass:
    by_word, by_noun, _ = classes()  # a class may have nouns only ("height")
    return next(c for c in (*by_word.values(), *by_noun.values()) if c.name == name)


def slot_nouns() -> dict[str, PredicateClass]:
    """Noun -> the class it names ("home": live, "citizenship": nationality)."""
    return classes()[1]


@cache
def _word_lists(section: str) -> dict[str, str]:
    """Word (folded) -> the list of a lexicon section it stands in: [limits] ("max": most),
    [measure_names] ("velocity": speed), [roles] ("pi": supervisor)."""
    return {fold(word): name for name, listed in lexicon()[section].items() for word in listed}


def _one_list(section: str, word_a: str, word_b: str) -> bool:
    found = _word_lists(section).get(word_a)
    return found is not None and found == _word_lists(section).get(word_b)


def same_limit_words(word_a: str, word_b: str) -> bool:
    """Two words (folded) that make a quantity the same limit of its noun ("top" / "max")."""
    return _one_list("limits", word_a, word_b)


def same_limit(a: Token, b: Token) -> bool:
    return same_limit_words(a.text, b.text) or same_limit_words(a.lemma, b.lemma)


def one_measure_words(word_a: str, word_b: str) -> bool:
    """Two words (folded) that name one measure ("weight" / "mass")."""
    return _one_list("measure_names", word_a, word_b)


def one_role(a: Token, b: Token) -> bool:
    """Two nouns of one role ("PI" / "supervisor", "boss" / "manager")."""
    return a.text != b.text and one_role_words(a.lemma, b.lemma)


def one_role_words(word_a: str, word_b: str) -> bool:
    """Two words (folded) of one role ("mother" / "mom")."""
    return _one_list("roles", word_a, word_b)


def measure_named(token: Token) -> str | None:
    """The measure a word names ("weight": mass), or None."""
    names = _word_lists("measure_names")
    return names.get(token.text) or names.get(token.lemma)


def pair_aside(only_a: list[Token], only_b: list[Token], same) -> tuple[list, list]:
    """Both lists less the first pair across them, one of each, that `same` holds of."""
    for a in only_a:
        for b in only_b:
            if same(a, b):
                return [t for t in only_a if t is not a], [t for t in only_b if t is not b]
    return only_a, only_b


def limits_aside(only_a: list[Token], only_b: list[Token], said_a, said_b) -> tuple[list, list]:
    """The words each of two phrases adds (`only_a`, `only_b`: of `said_a`, `said_b`), with
    one limit said two ways set aside: "Max upload size" / "Upload limit" add "size" and
    nothing, "top speed" / "max speed" nothing. Only where both phrases say more than
    the limit: "Max" alone is someone's name."""
    if len(said_a) < 2 or len(said_b) < 2:
        return only_a, only_b
    return pair_aside(only_a, only_b, lambda a, b: a.kind == b.kind == "word" and same_limit(a, b))


def same_class(a: PredicateClass | None, b: PredicateClass | None) -> bool:
    """Two classes of one name ("run on" is a way to say "deploy")."""
    return a is not None and b is not None and a.name == b.name


@cache
def preamble_pattern() -> re.Pattern:
    """The lexicon's preamble patterns as one expression (one match a text, not nine)."""
    return re.compile("|".join(f"(?:{p})" for p in lexicon()["preamble"]["patterns"]))


@cache
def note_pattern() -> re.Pattern:
    """The lexicon's notes of when a fact was said, after it, as one expression."""
    return re.compile("|".join(f"(?:{p})" for p in lexicon()["preamble"]["notes"]))


# Words that carry no fact besides the stop words, per language.
_EXTRA_FUNCTION_WORDS = {
    "en": "the a an this that these those some any every each really very also still just "
    "always usually often quite so too new again rarely seldom hardly barely ever sometimes "
    "occasionally frequently regularly normally typically mostly",
    "de": "der die das den dem des ein eine einen einem einer sehr auch noch immer schon "
    "oft häufig meistens selten kaum manchmal "
    "bei beim nach aus über unter seit vor zum zur bis durch gegen um vom ins",
    "fr": "le la les un une des du de l d très aussi encore toujours chez sous vers "
    "souvent rarement parfois fréquemment habituellement "
    "entre depuis pendant contre avant après au aux",
    "es": "el la los las lo un una unos unas de del al a y e o u en con para por que se le les "
    "muy también todavía siempre casi nunca a menudo sobre entre hasta durante contra antes "
    "después más que como cada este esta estos estas ese esa",
    "it": "il lo la i gli le un uno una di del della dei delle degli a al alla ai alle da dal "
    "dalla in nel nella con su sul sulla per tra fra e o che si ci molto anche ancora sempre "
    "spesso",
    "pt": "o a os as um uma uns umas de do da dos das em no na nos nas por pelo pela para com "
    "e ou que se muito também ainda sempre",
    "zh": "的 了 是 在 很 也 都 就 一名 一个 一只 一条 个 着 过 吧 呢 啊 "
    "到 给 对 从 向 把 被 上 里 今年 今天 现在 每天",
}


@cache
def _function_words(language: str) -> frozenset[str]:
    """Words of a language that carry no fact: its stop words, intensifiers, and the
    adverbs of change ("now", "actually", "jetzt", "désormais", "已经": read apart)."""
    language = language if language in _EXTRA_FUNCTION_WORDS else "en"
    change = [*lexicon()["change"]["words"], *lexicon()["change"]["durations"]]
    adverbs = {w for w in change if w not in classes()[0]} - set(lexicon()["cessation"]["words"])
    stop = lexicon()["stop_words"].get(language, "").split()
    found = set(stop) | adverbs | set(_EXTRA_FUNCTION_WORDS[language].split())
    found |= set(lexicon()["markers"]["past_time"]) | set(lexicon()["markers"]["new"])
    found |= set(lexicon()["approximate"]["words"])  # "about 40 min" is 40 min
    return frozenset(found) - words("negation") - _markers()


@cache
def per_language(key: str, language: str) -> frozenset[str]:
    """A list of store/lexicon.toml's [markers] kept per language ("auxiliaries_fr")."""
    return frozenset(lexicon()["markers"].get(f"{key}_{language}", ()))


def _chinese_time(word: str) -> str:
    """A Chinese weekday or month as a value ("weekday:thursday"), or ""."""
    for kind, table in (("weekday", "weekdays"), ("month", "months")):
        for value, spelled in lexicon()[table].items():
            if word in spelled and HAN.search(word):
                return f"{kind}:{value}"
    return ""


@cache
def _seasons() -> dict[str, str]:
    return {
        word: season for season, found in lexicon()["markers"]["seasons"].items() for word in found
    }


@cache
def _people_words(language: str) -> tuple[frozenset[str], ...]:
    """(user words, pronouns, possessives, relations) of a language ("son" is French for
    "his" and English for a child: each language's own lists)."""
    section = lexicon()["user"].get(language, lexicon()["user"]["en"])
    return tuple(
        frozenset(section[key]) for key in ("words", "pronouns", "possessives", "relations")
    )


@cache
def never_a_name(word: str) -> bool:
    """A folded word that opens memories without naming anyone: a pronoun, a possessive,
    a function word, a predicate ("My ...", "Is ...", "Loves ..."), in any language."""
    if word in stop_words() or class_of_word(word) or class_of_word(lemma(word, "en")):
        return True
    return any(
        word in found for language in ("en", "de", "fr") for found in _people_words(language)
    )


def relation_word(token: Token, language: str) -> bool:
    """ "son", "sister", "Kollegin", "女儿": someone named by their relation to the user."""
    relations = _people_words(language)[3]
    return token.lemma in relations or token.text in relations


@cache
def _markers() -> frozenset[str]:
    section = lexicon()["markers"]
    return frozenset(
        word for key in ("role", "contrast", "purpose", "replaced") for word in section[key]
    )


# --- Tokens ---------------------------------------------------------------------------------


class Token(NamedTuple):
    # A named tuple: a run builds one for every word of every memory it reads, and a
    # frozen dataclass took three times as long to build.
    text: str  # folded, as written
    lemma: str
    start: int  # character offset in the body
    # word | name | value (content); verb (a copula or an auxiliary: be, have, does);
    # function | negator | user | pronoun | possessive | marker
    kind: str
    value: str = ""  # a value's canonical form ("length:2", "date:2026-05-09", "name:lyon")
    upper: bool = False  # written with a capital
    caps: bool = False  # written in capitals, a short word: an acronym ("UCL", "DB", "PO")

    @property
    def content(self) -> bool:
        return self.kind in ("word", "name", "value")

    @property
    def key(self) -> str:
        """What two tokens must share to be one word: a value's canonical form, a word's
        lemma."""
        return self.value or self.lemma


_ENGLISH_CONTRACTIONS = {
    "n't": "not",
    "'m": "am",
    "'re": "are",
    "'ve": "have",
    "'ll": "will",
    "'d": "would",
}
_IRREGULAR_NOT = {"can't": "can", "won't": "will", "cannot": "can", "shan't": "shall"}
_FRENCH_ELISION = re.compile(r"^(l|d|j|n|qu|s|c|m|t|jusqu|lorsqu|puisqu)['’](.+)$")


@lru_cache(maxsize=65536)
def lemma(word: str, language: str) -> str:
    """A word's dictionary form (simplemma), folded; Chinese words as they are."""
    if language not in LEMMATISED or HAN.search(word):
        return fold(word)
    import simplemma

    return fold(simplemma.lemmatize(word, lang=language))


def _pieces(raw: str, language: str) -> list[tuple[str, int]]:
    """A written word split where a contraction or an elision joins two ("doesn't" ->
    "does", "not"; "l'interface" -> "l", "interface"), with offsets within it."""
    folded = fold(raw).replace("’", "'")
    if folded in _IRREGULAR_NOT:
        return [(_IRREGULAR_NOT[folded], 0), ("not", len(raw) - 3)]
    if language == "en" or language not in ("fr", "de"):
        for suffix, word in _ENGLISH_CONTRACTIONS.items():
            if folded.endswith(suffix) and len(folded) > len(suffix):
                cut = len(folded) - len(suffix)
                return [(folded[:cut], 0), (word, cut)]
        if folded.endswith("'s") and len(folded) > 2:
            return [(folded[:-2], 0), ("'s", len(folded) - 2)]
    if language == "fr":
        match = _FRENCH_ELISION.match(folded)
        if match:
            head = {"n": "ne", "qu": "que", "j": "je", "l": "le", "d": "de"}.get(
                match.group(1), match.group(1)
            )
            return [(head, 0), (match.group(2), len(match.group(1)) + 1)]
    return [(folded, 0)]


def _words_with_offsets(body: str, language: str) -> list[tuple[str, str, int]]:
    """(as written, folded piece, offset) for every word of the body."""
    if language in ("zh", "ja"):
        return _chinese_words(body)
    found = []
    for match in CLAUSE_WORD.finditer(body):
        start = match.start()
        for written, piece, offset in _word_pieces(match.group(), language):
            found.append((written, piece, start + offset))
        if bare_possessive(body, start, match.end()):
            found.append(("'s", "'s", match.end()))  # "Jonas' team": as "Jonas's team"
    return found


@lru_cache(maxsize=262144)
def _word_pieces(raw: str, language: str) -> tuple[tuple[str, str, int], ...]:
    """(as written, folded piece, offset within the word) of one written word: worked out
    once per word, as the words of a store repeat."""
    if raw.isalnum():  # most words: as written, folded, no piece to cut off
        return ((raw, fold(raw), 0),)
    found = []
    for piece, offset in _pieces(raw, language):
        # German lemmas need the word's case (nouns are capitalised).
        written = raw[offset : offset + len(piece)]
        if fold(written).replace("’", "'") != piece:
            written = piece
        found.append((written, piece, offset))
    return tuple(found)


def _chinese_words(body: str) -> list[tuple[str, str, int]]:
    """jieba's words (its dictionary only: guessed words vary), a negation split from the
    verb it negates ("没有" is "not" + "have", "不喜欢" "not" + "like"), and a run of
    single characters jieba does not know joined into one word (a name: 微信, 钉钉)."""
    import jieba

    _quiet_jieba()
    pieces, offset = [], 0
    for word in jieba.lcut(body, HMM=False):
        start = body.find(word, offset)
        offset = start + len(word)
        if not word.strip() or not (CLAUSE_WORD.fullmatch(word) or HAN.search(word)):
            pieces.append(None)  # punctuation: ends a run of characters
            continue
        if len(word) > 1 and word[0] in _CHINESE_NEGATORS and word not in _KEPT_WHOLE:
            pieces += [(word[0], start), (word[1:], start + 1)]
        else:
            pieces.append((word, start))
    function = _function_words("zh")
    found: list[tuple[str, str, int]] = []
    run: list[tuple[str, int]] = []

    def flush() -> None:
        if run:
            word = "".join(w for w, _ in run)
            found.append((word, fold(word), run[0][1]))
            run.clear()

    for piece in pieces:
        single = piece is not None and len(piece[0]) == 1 and HAN.search(piece[0])
        if (
            single
            and piece[0] not in function
            and piece[0] not in _CHINESE_NEGATORS
            and not _known_word(piece[0])
        ):
            run.append(piece)
            continue
        flush()
        if piece is not None:
            found.append((piece[0], fold(piece[0]), piece[1]))
    flush()
    return found


_CHINESE_NEGATORS = "不没别未无"
# Words that start with a negator and are one word ("不再": no longer, a cue of its own).
_KEPT_WHOLE = frozenset({"不再", "不要", "无论", "不过", "不同", "不断", "没关系"})


def _known_word(char: str) -> bool:
    """A single character that is a word of the lexicon's (a verb, a class word)."""
    return class_of_word(char) is not None or char in CHINESE_VERBS


# Single-character verbs memories use; anything else alone is part of a name.
CHINESE_VERBS = frozenset("喝吃用住是在有去来做学看听说写读买卖开跑走玩叫养弹打踢") | frozenset(
    {"需要", "花", "要", "参加", "负责", "管理", "开始", "结束", "到达", "离开"}
)


@cache
def _quiet_jieba() -> None:
    import logging

    import jieba
    from django.conf import settings

    jieba.setLogLevel(logging.WARNING)
    # jieba keeps its dictionary's prefix table in a cache file (0.6 s to build, 0.1 s to
    # load): in the app's data folder, never the system's temporary one.
    folder = settings.DATA_DIR / "cache"
    folder.mkdir(parents=True, exist_ok=True)
    jieba.dt.tmp_dir = str(folder)


def _value_spans(body: str) -> list[tuple[int, int, str]]:
    """(start, end, canonical value) of the body's measured values, numbers and dates, in
    the body's own offsets."""
    folded = fold(body)
    spans = []
    for value in quantities.read(body):
        start, end = value.start, value.end
        if len(folded) != len(body):  # ß, ligatures: map back by proportion
            start = round(start * len(body) / len(folded))
            end = round(end * len(body) / len(folded))
        spans.append((start, end, f"{value.measure}:{value.value}"))
    for match in EMAIL.finditer(body):
        spans.append((match.start(), match.end(), f"email:{match.group().lower()}"))
    text_words = keytokens.words_of(body)
    days: list[tuple[int, str]] = []
    for token in keytokens.key_tokens(body):
        if token.kind in ("date", "weekday", "month", "env") and token.position < len(text_words):
            start = text_words[token.position].start
            end = start + len(token.written) if token.written else text_words[token.position].end
            spans.append((start, end, f"{token.kind}:{token.value}"))
            if token.kind == "weekday":
                days.append((start, token.value))
    weekdays = keytokens.lexicon_tables()["weekdays"]
    for match in CHINESE_WEEKDAY.finditer(body):  # "每周三": no word of its own to stand at
        days.append((match.start(), weekdays.get(match.group(), match.group())))
    for start, _, named in rates.day_sets(folded):  # "Mon-Fri", "on weekdays": its days
        days += [(start, day) for day in named]
    # A rate of weekdays ("every Monday") is one token with its days: "every Monday" is
    # not "every Thursday", though each is once a week (matching.same_word).
    for number, (start, end, value) in enumerate(spans):
        named = sorted({day for at, day in days if start <= at < end})
        if value.startswith("rate:") and named:
            spans[number] = (start, end, f"{value}@{','.join(named)}")
    return spans


@text_cache
def tokens(body: str, language: str) -> tuple[Token, ...]:
    """The body's tokens, each with its kind; the words of one value are one token."""
    spans = _value_spans(body)
    text_words = keytokens.words_of(body)
    names, name_spans = {}, []
    for token in keytokens.key_tokens(body):
        if token.kind in ("name", "host", "ip") and token.position < len(text_words):
            start = text_words[token.position].start
            names[start] = token.value
            if token.written:  # a label of two words ("Joint 4"): its number is no value
                name_spans.append((start, start + len(token.written)))
    spans = [s for s in spans if not any(a <= s[0] < b for a, b in name_spans)]
    by_word = classes()[0]
    found: list[Token] = []
    spans_taken: set[int] = set()
    # Most words stand outside every value: they need not look for theirs.
    first, last = (min(s[0] for s in spans), max(s[1] for s in spans)) if spans else (0, 0)
    for written, piece, start in _words_with_offsets(body, language):
        if name_spans and any(a < start < b for a, b in name_spans):
            continue  # the rest of a two-word label
        span = _span_at(spans, start) if first <= start < last else None
        if span is not None and spans[span][2].startswith("env:") and by_word.get(piece):
            span = None  # "I live in Leeds": the verb, not the "live" environment
        if span is not None:
            if span not in spans_taken:  # a value's words are one token
                spans_taken.add(span)
                found.append(Token(piece, piece, start, "value", spans[span][2]))
            continue
        if piece in (":", "："):
            # "Package manager: pnpm": a colon between a name and its value is a copula.
            found.append(Token(piece, "be", start, "verb"))
            continue
        lemma_, kind, upper, caps, season = _word_kind(written, piece, language)
        if season and not (
            piece == "été" and found and found[-1].text in per_language("auxiliaries", "fr")
        ):  # "a été déplacée": the participle, not the summer
            found.append(Token(piece, piece, start, "value", f"season:{season}"))
            continue
        if language == "zh" and (when := _chinese_time(piece)):
            found.append(Token(piece, piece, start, "value", when))  # "星期四", "周二"
            continue
        if start in names and kind in ("word", "function", "verb"):
            # Before the classes: "the Proxmox VE cluster" has no verb "ve".
            name = names[start]
            found.append(Token(piece, name, start, "name", f"name:{name}", True, caps))
            continue
        if kind == "word" and neighbours.ne_plus(found, piece):
            kind = "function"
        found.append(Token(piece, lemma_, start, kind, "", upper, caps))
    return neighbours.retagged(found)


@lru_cache(maxsize=262144)
def _word_kind(written: str, piece: str, language: str) -> tuple[str, str, bool, bool, str]:
    """(lemma, kind, upper, caps, season) of a word, whatever stands around it: worked
    out once per word (a store's words repeat from memory to memory). Names, values and
    "ne ... plus" depend on the text, and are the caller's."""
    lemma_, kind = _lemma_and_kind(written, piece, language)
    return lemma_, kind, written[:1].isupper(), _caps(written), _seasons().get(piece, "")


def _lemma_and_kind(written: str, piece: str, language: str) -> tuple[str, str]:
    # German lemmas need the word's case (nouns are capitalised); other languages' the
    # folded piece.
    lemma_ = lemma(written if language == "de" else piece, language)
    known = classes()[0].get(lemma_) or classes()[0].get(piece)
    users, pronouns, possessives, _ = _people_words(language)
    negators = words("negation")
    if piece in negators or piece == "not" or lemma_ in negators:
        return lemma_, "negator"
    if piece in users:
        return lemma_, "user"
    if piece in possessives:
        return lemma_, "possessive"
    if piece in pronouns:
        return lemma_, "pronoun"
    if piece in _markers():
        return lemma_, "marker"
    if keytokens.title(written):
        return lemma_, "function"  # "Dr. Lavoie" is Lavoie; "200 ms" is no title
    if (known is not None and known.name in ("be", "have")) or piece in per_language(
        "auxiliaries", language
    ):
        return lemma_, "verb"
    if known is not None:
        return lemma_, "word"  # "use", "used": stop words to the lexical signal, predicates here
    function = _function_words(language)
    if piece in function or lemma_ in function or piece == "'s":
        return lemma_, "function"
    return lemma_, "word"


def _span_at(spans: list[tuple[int, int, str]], start: int) -> int | None:
    """The longest value span a word at `start` falls in (a date over a number), or None.
    A plain loop: a text has a span or two, and this runs for every word."""
    best, length = None, -1
    for index, (begin, end, _) in enumerate(spans):
        if begin <= start < end and end - begin > length:
            best, length = index, end - begin
    return best


def _caps(written: str) -> bool:
    return 2 <= len(written) <= 6 and written.isalpha() and written.isupper()
