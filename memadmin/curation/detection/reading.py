"""Reading a memory as one clause: who it is about, what is said of them (the predicate
and what follows it), whether it is asserted or denied, whether it announces a change,
and whether it tells an event or a state.

Memories are short: "Loves cheese pizza" (no subject: the user), "I don't like jazz",
"User works at Globex as a backend engineer", "The cache is Redis", "On 3 May the user
said that Tom works at Siemens". There is no parser that runs offline here, so the reading
is built from lemmas (simplemma for English, German and French; jieba's words for
Chinese), the values curation.detection.keytokens finds (canonical numbers, dates, names)
and the classes of predicate in store/lexicon.toml (where one lives, works, what one
likes, the verbs that change those). What no class names is read by its form: the first
word of a memory with no subject ("Plays chess", "Took Rex camping"), or the word after a
named or pronoun subject, is its predicate.

Pure functions of text, cached: every memory is read once a run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import NamedTuple

from memadmin.curation.detection import keytokens, quantities
from memadmin.store.lexicon import HAN, fold, language_of, lexicon, words

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


@cache
def _classes() -> tuple[dict[str, PredicateClass], dict[str, PredicateClass], list]:
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
        )
        for word in entry.get("words", []):
            by_word.setdefault(word, found)
        for noun in entry.get("nouns", []):
            by_noun.setdefault(noun, found)
        phrases.extend((phrase, found) for phrase in entry.get("phrases", []))
    return by_word, by_noun, phrases


def predicate_class(name: str) -> PredicateClass:
    return next(c for c in _classes()[0].values() if c.name == name)


def slot_nouns() -> dict[str, PredicateClass]:
    """Noun -> the class it names ("home": live, "citizenship": nationality)."""
    return _classes()[1]


def same_class(a: PredicateClass | None, b: PredicateClass | None) -> bool:
    """Two classes of one name ("run on" is a way to say "deploy")."""
    return a is not None and b is not None and a.name == b.name


@cache
def _preamble() -> re.Pattern:
    """The lexicon's preamble patterns as one expression (one match a text, not nine)."""
    return re.compile("|".join(f"(?:{p})" for p in lexicon()["preamble"]["patterns"]))


# Words that carry no fact besides the stop words, per language.
_EXTRA_FUNCTION_WORDS = {
    "en": "the a an this that these those some any every each really very also still just "
    "always usually often quite so too new again",
    "de": "der die das den dem des ein eine einen einem einer sehr auch noch immer schon "
    "bei beim nach aus über unter seit vor zum zur bis durch gegen um vom ins",
    "fr": "le la les un une des du de l d très aussi encore toujours chez sous vers "
    "entre depuis pendant contre avant après au aux",
    "zh": "的 了 是 在 很 也 都 就 一名 一个 一只 一条 个 着 过 吧 呢 啊 "
    "到 给 对 从 向 把 被 上 里 今年 今天 现在 每天",
}


@cache
def _function_words(language: str) -> frozenset[str]:
    """Words of a language that carry no fact: its stop words, intensifiers, and the
    adverbs of change ("now", "actually", "jetzt", "désormais", "已经": read apart)."""
    language = language if language in _EXTRA_FUNCTION_WORDS else "en"
    change = lexicon()["change"]["words"]
    adverbs = {w for w in change if w not in _classes()[0]} - set(lexicon()["cessation"]["words"])
    stop = lexicon()["stop_words"].get(language, "").split()
    found = set(stop) | adverbs | set(_EXTRA_FUNCTION_WORDS[language].split())
    found |= set(lexicon()["markers"]["past_time"]) | set(lexicon()["markers"]["new"])
    found |= set(lexicon()["approximate"]["words"])  # "about 40 min" is 40 min
    return frozenset(found) - words("negation") - _markers()


@cache
def _per_language(key: str, language: str) -> frozenset[str]:
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
    section = lexicon()["user"].get(language if language in ("de", "fr", "zh") else "en")
    return tuple(
        frozenset(section[key]) for key in ("words", "pronouns", "possessives", "relations")
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


# A word as written: letters and digits, with inner apostrophes, hyphens, dots and
# slashes (Fly.io, Europe/Berlin, unit-test, don't, l'interface).
_WORD = re.compile(r"[\w][\w'’\-./]*[\w]|[\w]|[%€$£°]|(?<=\w)[:：](?=\s|$)")
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
    if language not in ("en", "de", "fr", "es") or HAN.search(word):
        return fold(word)
    import simplemma

    return fold(simplemma.lemmatize(word, lang=language))


def _pieces(raw: str, language: str) -> list[tuple[str, int]]:
    """A written word split where a contraction or an elision joins two ("doesn't" ->
    "does", "not"; "l'interface" -> "l", "interface"), with offsets within it."""
    if raw.isalnum():  # most words: no contraction, no elision
        return [(fold(raw), 0)]
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
    for match in _WORD.finditer(body):
        raw = match.group()
        for piece, offset in _pieces(raw, language):
            # German lemmas need the word's case (nouns are capitalised).
            written = raw[offset : offset + len(piece)]
            if fold(written).replace("’", "'") != piece:
                written = piece
            found.append((written, piece, match.start() + offset))
    return found


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
        if not word.strip() or not (_WORD.fullmatch(word) or HAN.search(word)):
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
    return class_of_word(char) is not None or char in _CHINESE_VERBS


# Single-character verbs memories use; anything else alone is part of a name.
_CHINESE_VERBS = frozenset("喝吃用住是在有去来做学看听说写读买卖开跑走玩叫养弹打踢") | frozenset(
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
    text_words = keytokens._words_of(body)
    for token in keytokens.key_tokens(body):
        if token.kind in ("date", "weekday", "month", "env") and token.position < len(text_words):
            start = text_words[token.position].start
            end = start + len(token.written) if token.written else text_words[token.position].end
            spans.append((start, end, f"{token.kind}:{token.value}"))
    return spans


@lru_cache(maxsize=65536)
def tokens(body: str, language: str) -> tuple[Token, ...]:
    """The body's tokens, each with its kind; the words of one value are one token."""
    spans = _value_spans(body)
    text_words = keytokens._words_of(body)
    names, name_spans = {}, []
    for token in keytokens.key_tokens(body):
        if token.kind in ("name", "host", "ip") and token.position < len(text_words):
            start = text_words[token.position].start
            names[start] = token.value
            if token.written:  # a label of two words ("Joint 4"): its number is no value
                name_spans.append((start, start + len(token.written)))
    spans = [s for s in spans if not any(a <= s[0] < b for a, b in name_spans)]
    function = _function_words(language)
    users, pronouns, possessives, _ = _people_words(language)
    negators, markers = words("negation"), _markers()
    auxiliaries = _per_language("auxiliaries", language)
    by_word = _classes()[0]
    found: list[Token] = []
    spans_taken: set[int] = set()
    for written, piece, start in _words_with_offsets(body, language):
        if name_spans and any(a < start < b for a, b in name_spans):
            continue  # the rest of a two-word label
        span = _span_at(spans, start) if spans else None
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
        if piece in _seasons() and not (
            piece == "été" and found and found[-1].text in _per_language("auxiliaries", "fr")
        ):  # "a été déplacée": the participle, not the summer
            found.append(Token(piece, piece, start, "value", f"season:{_seasons()[piece]}"))
            continue
        if language == "zh" and (when := _chinese_time(piece)):
            found.append(Token(piece, piece, start, "value", when))  # "星期四", "周二"
            continue
        lemma_ = lemma(written if language == "de" else piece, language)
        known = by_word.get(lemma_) or by_word.get(piece)
        if piece in negators or piece == "not" or lemma_ in negators:
            kind = "negator"
        elif piece in users:
            kind = "user"
        elif piece in possessives:
            kind = "possessive"
        elif piece in pronouns:
            kind = "pronoun"
        elif piece in markers:
            kind = "marker"
        elif start in names and not (language == "de" and _german_word(written)):
            # Before the classes: "the Proxmox VE cluster" has no verb "ve".
            found.append(
                Token(
                    piece, names[start], start, "name", f"name:{names[start]}", True, _caps(written)
                )
            )
            continue
        elif (known is not None and known.name in ("be", "have")) or piece in auxiliaries:
            kind = "verb"
        elif known is not None:
            kind = "word"  # "use", "used": stop words to the lexical signal, predicates here
        elif piece in function or lemma_ in function or piece == "'s" or _ne_plus(found, piece):
            kind = "function"
        else:
            kind = "word"
        found.append(
            Token(piece, lemma_, start, kind, upper=written[:1].isupper(), caps=_caps(written))
        )
    return tuple(found)


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


def _ne_plus(before: list[Token], piece: str) -> bool:
    """French "plus" after "ne", German "mehr" after "nicht" or "kein": "no longer",
    not "more"."""
    if piece == "plus":
        return any(t.text == "ne" for t in before[-3:])
    return piece == "mehr" and any(t.kind == "negator" for t in before[-4:])


def _german_word(written: str) -> bool:
    """A capitalised German word the dictionary knows is a noun, not a name ("Kaffee")."""
    import simplemma

    return simplemma.is_known(written, lang="de")


# --- The reading ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    text: str
    language: str
    body: str  # the text without its reporting preamble
    said_when: str  # the preamble set aside ("as of 2026-02-01,")
    label: str  # a label before the clause ("Safety rule:"), part of the body
    tokens: tuple[Token, ...]
    predicate_at: int  # index into tokens; -1 when no predicate was found
    predicate: PredicateClass | None
    subject_end: int  # tokens[:subject_end] hold the subject (before the predicate)
    stance: int  # +1 liking, -1 disliking, 0 neither (before negation)
    negated: bool
    ceased: bool  # quit, sold, gave up, changed one's mind
    change: bool  # the text announces a change
    event: bool  # something happened (past tense), not a state
    recommended: bool  # someone else's suggestion or gift
    clause_end: int  # tokens[:clause_end] are the main clause
    opening: bool  # the clause opens with a preposition ("After 40 min, ..."): no subject first

    @property
    def sign(self) -> int:
        """+1 asserted, -1 denied. A negation or a cessation denies (both at once, as in
        "decided against", still once); a negative stance flips ("doesn't hate")."""
        sign = -1 if self.negated or self.ceased else 1
        return -sign if self.stance < 0 else sign

    @property
    def subject(self) -> tuple[Token, ...]:
        """The tokens before the predicate (none when no predicate was found)."""
        return tuple(
            t for t in self.tokens[: self.subject_end] if t.kind not in ("function", "marker")
        )

    @property
    def subject_words(self) -> tuple[Token, ...]:
        """The subject's content words, less a word that only names the predicate ("her
        home is in Lyon": lives; "Mum's birthday": born)."""
        nouns = _classes()[1]
        return tuple(
            t
            for t in self.subject
            if t.content
            and not (self.predicate is not None and nouns.get(t.lemma) is self.predicate)
        )

    @property
    def about_user(self) -> bool:
        """No subject, the user, or a pronoun: the namespace's user (or someone the text
        does not name)."""
        return not self.subject_words

    @property
    def objects(self) -> tuple[Token, ...]:
        """The content tokens of the main clause after the predicate."""
        return tuple(
            t
            for index, t in enumerate(self.tokens[: self.clause_end])
            if index >= self.subject_end
            and index != self.predicate_at
            and t.content
            and not _is_class_word(t, self.predicate)
        )

    @property
    def content(self) -> tuple[Token, ...]:
        """Every content token of the body (all clauses)."""
        return tuple(t for t in self.tokens if t.content)


def _is_class_word(token: Token, predicate: PredicateClass | None) -> bool:
    """A word that only says which predicate it is (the stance word, "home" of "lives")."""
    if predicate is None:
        return False
    return same_class(class_of(token), predicate)


def warm_up() -> None:
    """Load what reading a text needs (simplemma's dictionaries of the three languages,
    the unit table), so that worker processes forked after this share it."""
    for language in ("en", "de", "fr"):
        lemma("warm", language)
    read("Lives in Lyon and works 2 h a day.")
    quantities.read("1,5 km")


@lru_cache(maxsize=65536)
def slot_keys(text: str) -> frozenset[str]:
    """The slots a memory gives a value to, as "class:subject" ("live:" for "Lives in
    Porto" and for "Moved to Lyon"; "work:tom" for "Tom works at Initech"): memories that
    share one are compared whatever their cosine. Only classes whose slot holds one value
    (or the events that set them)."""
    found = read(text)
    predicate = found.predicate
    if predicate is None:
        return frozenset()
    classes = [predicate.name] if predicate.slot == "one" else []
    classes += [c for c in predicate.sets if c != "*"]
    if predicate.name in ("use", "switch"):
        classes.append("use")  # "Nutzt Windows" / "Ist auf Linux umgestiegen"
    if not classes:
        return frozenset()
    subject = found.subject_words[-1].lemma if found.subject_words else ""
    return frozenset(f"{name}:{subject}" for name in classes)


def strip_preamble(text: str) -> tuple[str, str]:
    """(the text without its reporting preamble, the preamble): "On 3 May the user said
    that" is two patterns, taken one after the other."""
    body = text
    while True:
        folded = fold(body[:120])
        match = _preamble().match(folded)
        if match is not None and match.end() >= len(folded):
            match = None
        # Folding keeps the length of everything but ß and ligatures: cut by proportion.
        cut = match.end() * len(body[:120]) // len(folded) if match else 0
        if not match or not body[cut:].strip(" .。"):
            return body, text[: len(text) - len(body)]
        body = body[cut:].lstrip(" ,:;，：")


_CLAUSE_BREAK = re.compile(r"[;；!?！？，]|\.\s|。|\s—\s|\s-\s|,\s(?:but|aber|mais)\s|\(")
# Abbreviations whose full stop ends no clause ("Dr. Patel", "St. Mary's", "e.g. MA2").
_ABBREVIATION = re.compile(
    r"(?:\b(?:dr|mr|mrs|ms|st|prof|jr|sr|vs|etc|ca|no|nr|bzw|z\.b|e\.g|i\.e)|\b\w)$", re.I
)


def clause_break(text: str) -> int | None:
    """Where the first clause of a text ends (None: it is one clause)."""
    for match in _CLAUSE_BREAK.finditer(text):
        if match.group().startswith(".") and _ABBREVIATION.search(text[: match.start()]):
            continue
        if match.start() < len(text.rstrip(" .。;")) - 1:
            return match.start()
    return None


@lru_cache(maxsize=65536)
def read(text: str) -> Reading:
    """The reading of one memory's text (see the module's docstring)."""
    language = language_of(text)
    body, said = strip_preamble(text.strip())
    clause, label = _without_label(body, language)
    found = tokens(clause, language)
    ends = clause_break(clause)
    clause_end = len(found) if ends is None else sum(1 for t in found if t.start < ends)
    main = found[:clause_end]
    folded = fold(clause)
    predicate_at, predicate = _predicate(main, language)
    if (predicate is None or predicate.name == "be") and _AGE.search(fold(clause)):
        predicate = predicate_class("age")  # "is 7 years old", "女儿8岁", "a 7 ans"
        if predicate_at < 0:  # "大儿子今年10岁": what comes before the age is its subject
            predicate_at = next((i for i, t in enumerate(main) if t.kind == "value"), -1)
    lone = [i for i, t in enumerate(main) if t.kind == "word"]
    if predicate_at < 0 and len(lone) == 1 and not any(t.kind == "name" for t in main):
        predicate_at = lone[0]  # "Fume.", "Smokes.": one word, the verb
    stance = _stance(main, folded)
    if predicate is None and stance:
        predicate = predicate_class("like" if stance > 0 else "dislike")
    ceased = _ceased(main, predicate_at, folded)
    recommending = words("recommendation")
    recommended = any(t.lemma in recommending or t.text in recommending for t in main) or any(
        phrase in folded for phrase in words("recommendation", "phrases")
    )
    negated = (
        any(t.kind == "negator" for t in main)
        and not _negation_only_of_objects(main)
        and not _stance_phrase(folded)
    )
    change = (
        keytokens.announces_change(clause)
        or ceased
        or any(t.text in words("markers", "new") for t in main[: max(predicate_at, 0)])
        or bool(predicate and predicate.sets)
        or bool(_NO_LONGER_FRENCH.search(folded))
    )
    return Reading(
        text=text,
        language=language,
        body=body,
        said_when=said,
        label=label,
        tokens=found,
        predicate_at=predicate_at,
        predicate=predicate,
        subject_end=_subject_end(main, predicate_at, language, said),
        stance=stance,
        negated=negated,
        ceased=ceased,
        change=change,
        event=_is_event(main, predicate_at, predicate, language, folded)
        and _event_of(predicate, main),
        recommended=recommended,
        clause_end=clause_end,
        opening=bool(main) and (main[0].text in words("markers", "openings")),
    )


_LABEL = re.compile(r"^([^:：;.。]{1,60}?)\s*[:：]\s+")


def _without_label(body: str, language: str) -> tuple[str, str]:
    """ "Safety rule: TCP speed is capped...", "Postmortem 2025-11-04: ingest lost...": a
    label with no verb before a clause that has one is set aside, like a preamble. Where
    no verb follows ("Package manager: pnpm"), the colon stays, as a copula."""
    match = _LABEL.match(body)
    if not match:
        return body, ""
    rest = body[match.end() :]
    ends = clause_break(rest)
    before = tokens(match.group(1), language)
    after = tokens(rest if ends is None else rest[:ends], language)
    if _predicate(before, language)[0] < 0 and _predicate(after, language)[0] >= 0:
        return body[match.end() :], body[: match.end()]
    return body, ""


def _ceased(main, predicate_at: int, folded: str) -> bool:
    """The clause ends what it names: a cessation phrase ("gave up", "changed my mind"),
    or a cessation verb as its predicate or before it ("quit the band", "sold the Golf";
    not "latency dropped" said of a thing)."""
    if any(phrase in folded for phrase in words("cessation", "phrases")):
        return True
    if predicate_at < 0:
        return False
    ending = words("cessation")
    return any(
        t.lemma in ending or t.text in ending for t in main[: predicate_at + 1] if t.kind == "word"
    ) and not any(t.content for t in main[:predicate_at])


# An age: "7 years old", "sieben Jahre alt", "a 7 ans", "8岁".
_AGE = re.compile(r"\d+\s*(?:years?|yrs?)(?:\s+|-)old|\d+\s*jahre\s+alt|\ba\s+\d+\s*ans\b|\d+\s*岁")


# "n'aime plus", "ne fume plus", "trinkt keinen Kaffee mehr": no longer.
_NO_LONGER_FRENCH = re.compile(r"\bn(?:e\s+|')\S+\s+plus\b|\b(?:nicht|kein\w*)\b.*\bmehr\b")


def _subject_end(main, predicate_at: int, language: str, said: str) -> int:
    """Where the subject ends: at the predicate, but in a German clause after "dass" (the
    verb comes last: "dass Jonas in Wien wohnt") after its first person or name."""
    if predicate_at < 0:
        return 0
    if language == "de" and "dass" in fold(said):
        for index, token in enumerate(main[:predicate_at]):
            if token.kind in ("user", "pronoun", "name") or token.upper:
                return index + 1
    # An auxiliary before the verb ends the subject ("ist nach Dresden gezogen", "wurde
    # auf Mittwoch verschoben": what stands between is the verb's).
    auxiliary = next((i for i, t in enumerate(main[:predicate_at]) if t.kind == "verb"), None)
    return predicate_at if auxiliary is None else auxiliary


def _negation_only_of_objects(main: tuple[Token, ...]) -> bool:
    """ "without sugar", "ohne Zucker", "sans sucre": the negation is of a thing, not of
    what is said."""
    negators = [t for t in main if t.kind == "negator"]
    return all(t.text in ("without", "ohne", "sans", "无") for t in negators)


def _stance_phrase(folded: str) -> bool:
    """ "can't stand", "ne supporte pas": a stance whose negation is part of it."""
    return any(phrase in folded for phrase, _ in _classes()[2])


def _stance(main: tuple[Token, ...], folded: str) -> int:
    """+1 or -1 from the first word of liking or disliking in the main clause."""
    by_word, _, phrases = _classes()
    for phrase, found in phrases:
        if phrase in folded:
            return found.stance
    for token in main:
        found = by_word.get(token.lemma) or by_word.get(token.text)
        if found is not None and found.stance:
            return found.stance
    if HAN.search(folded):
        for word, found in by_word.items():
            if found.stance and HAN.search(word) and word in folded:
                return found.stance
    return 0


def _predicate(main: tuple[Token, ...], language: str) -> tuple[int, PredicateClass | None]:
    """The index of the main clause's predicate, and its class when the lexicon knows it.

    A class word (lives, works, loves...) is the predicate; a copula or an auxiliary gives
    way to a verb right after it ("is learning", "does not smoke", "was lowered"), and a
    copula with none names what its subject names ("her home is in Lyon": lives). A
    memory with no subject starts with its predicate ("Plays chess", "Took Rex camping");
    after a subject (a user word, a pronoun, a name) the next verb is ("Ana swam")."""
    by_noun = _classes()[1]
    seen: list[Token] = []  # what came before: the subject
    for index, token in enumerate(main):
        if token.kind == "possessive":
            seen.append(token)  # "her best friend": what follows is a noun
            continue
        if token.kind in ("function", "negator", "marker"):
            continue
        found = class_of(token)
        if token.kind == "verb":
            is_copula = found is not None
            main_verb = _verb_after(main, index, language, any_word=not is_copula)
            if main_verb is not None:
                later = class_of(main[main_verb])
                if later is not None and later.needs_subject and not any(t.content for t in seen):
                    later = None  # "don't run zpool upgrade on tank": a command
                return main_verb, later and _with_preposition(later, main, main_verb, language)
            if is_copula:
                return index, _subject_noun_class(seen, by_noun) or found
            continue  # a modal whose verb was not found
        if token.kind == "word" and found is not None and _gerund_subject(main, index, language):
            seen.append(token)  # "Upgrading tank's pool features breaks...": a subject
            continue
        if token.kind == "word" and found is not None:
            if found.stance and any(
                t.kind == "verb" and class_of(t) is not None for t in main[index + 1 : index + 3]
            ):
                seen.append(token)  # "Alice's favourite film is...", "Preferred slot is..."
                continue
            if found.needs_subject and not any(t.content for t in seen):
                return index, None
            return index, _with_preposition(found, main, index, language)
        if token.kind == "word" and _starts_predicate(main, index, seen, language):
            return index, None
        seen.append(token)
    return -1, None


def _with_preposition(found: PredicateClass, main, index: int, language: str):
    """The class, when the first preposition after the predicate (past its object) is
    one it takes, and not before a time ("lives in Lyon", "works at Acme", "host the
    docs on Netlify"); None otherwise ("works on a MacBook", "lives with two cats", "ran
    10 km on Saturday"). Chinese, and a verb that ends its clause, are taken as they
    are."""
    if not found.preps or language == "zh" or index + 1 >= len(main):
        return found
    position = index + 1
    while position < min(index + 6, len(main)):
        token = main[position]
        following = main[position + 1] if position + 1 < len(main) else None
        if token.kind == "function" and following is not None and _timely(following):
            position += 2  # "wohnt seit März in Bonn": a time on the way
            continue
        position += 1
        if token.kind == "value" and not token.value.startswith("name:"):
            return None  # "runs 2 replicas in production", "ran 10 km": no place
        if found.needs_subject and token.kind == "name" and position == index + 2:
            return found  # "the database runs PostgreSQL 15": what it runs on
        if token.content or token.text in _ARTICLES:
            continue  # the verb's object ("host the docs on ...")
        if token.text in found.preps:
            following = next((t for t in main[position:] if t.content), None)
            return None if following is not None and _timely(following) else found
        if token.kind in ("function", "marker"):
            return None  # another preposition first
    return None


def _timely(token: Token) -> bool:
    return token.value.split(":")[0] in ("date", "weekday", "month", "time", "season")


_ARTICLES = frozenset("the a an der die das den dem ein eine einen le la les un une l".split())


def class_of_word(word: str) -> PredicateClass | None:
    return _classes()[0].get(word)


def class_of(token: Token) -> PredicateClass | None:
    """The class of predicate a word belongs to, or None."""
    by_word = _classes()[0]
    return by_word.get(token.lemma) or by_word.get(token.text)


def _gerund_subject(main, index: int, language: str) -> bool:
    """An English -ing word that opens a clause whose own verb comes later ("Upgrading
    the pool breaks replication"), unlike "Planning a trip to Japan"."""
    token = main[index]
    if language != "en" or index or not token.text.endswith("ing"):
        return False
    return any(
        t.kind == "verb" or (t.kind == "word" and t.text.endswith("s") and t.lemma + "s" == t.text)
        for t in main[index + 2 :]
    )


def _subject_noun_class(subject: list[Token], by_noun) -> PredicateClass | None:
    """ "Her home is...", "User's name is...", "Mum's birthday is...": the class the last
    word of the subject names."""
    for token in reversed(subject):
        if token.content:
            return by_noun.get(token.lemma) or by_noun.get(token.text)
    return None


def _starts_predicate(main, index: int, seen: list[Token], language: str) -> bool:
    token = main[index]
    content_before = [t for t in seen if t.content]
    if not content_before and not seen:
        # The first word of the memory: a verb when it reads as one ("Plays chess",
        # "Took Rex camping"; not "Ana swam", not "Alerts are routed").
        # A copula just after ("Preferred meeting slot is ...") makes it part of the subject.
        copula_soon = any(t.kind == "verb" for t in main[index + 1 : index + 4])
        return _verb_form(token, language) and not copula_soon
    if seen and seen[-1].kind in ("user", "pronoun"):
        return True  # "I collect", "she wants"
    if language == "zh" and token.text in _CHINESE_VERBS:
        return True  # "前端测试需要5分钟": a verb, wherever it stands
    if len(content_before) == 1 and (seen[-1].kind == "name" or seen[-1].upper):
        return _verb_form(token, language) or language == "zh"  # "Ana swam", "Tom works"
    # After a noun phrase, an English verb by its ending: "the unit-test job takes"; not
    # a plural before a colon or a copula ("the NAS datasets: ...", "gateways are").
    following = main[index + 1] if index + 1 < len(main) else None
    irregular_past = not token.text.endswith(("s", "ing"))  # "the broker ran out of disk"
    return (
        language == "en"
        and bool(content_before)
        and seen[-1].kind in ("word", "name")
        and (token.text.endswith(("s", "ed")) or irregular_past)
        and token.lemma != token.text
        and not (following is not None and following.kind == "verb")
    )


def _verb_after(main, index: int, language: str, *, any_word: bool) -> int | None:
    """The main verb after an auxiliary ("does not smoke", "can swim": any word) or a
    copula ("is now training", "was lowered": a participle or a class word), within two
    words; in German at the end of the clause ("ist nach Dresden gezogen"); or None."""
    if language == "de":
        for position in range(len(main) - 1, index, -1):
            token = main[position]
            if token.kind == "word" and (_participle(token, language) or class_of(token)):
                return position
            if token.content:
                break  # the last content word is no verb: no participle at the end
    skipped = 0
    for position in range(index + 1, len(main)):
        token = main[position]
        if token.kind == "negator" or token.text in (
            "now",
            "still",
            "also",
            "no",
            "longer",
            "never",
        ):
            continue
        if token.kind not in ("word", "verb") or skipped >= 2:
            return None
        found = class_of(token)
        if any_word or (found is not None and found.name != "be") or _participle(token, language):
            return position
        skipped += 1
    return None


def _participle(token: Token, language: str) -> bool:
    text = token.text
    if language == "en":
        return text.endswith(("ing", "ed")) and token.lemma != text
    if language == "de":
        return text.startswith("ge") and text.endswith(("t", "en")) and token.lemma != text
    if language == "fr":
        return text.endswith(("é", "ée", "és", "ées", "i", "u", "is", "it")) and token.lemma != text
    return False


def _verb_form(token: Token, language: str) -> bool:
    """A word that reads as a conjugated verb by its form: "plays", "took", "visited",
    "wohnt", "habite" (its lemma differs), a class word or a verb of cessation ("quit"),
    never "hiking" (a gerund)."""
    if token.kind != "word" or token.text.endswith("ing"):
        return False
    cessation = words("cessation")
    return (
        token.lemma != token.text
        or class_of(token) is not None
        or token.text in cessation
        or token.lemma in cessation
    )


# German verbs in the present whose form is not their lemma's nor ends like a present.
_GERMAN_MODALS = frozenset({"mag", "kann", "will", "muss", "darf", "soll", "weiß"})


def _german_past(verb: Token) -> bool:
    """ "lief", "schwamm", "wohnte", "spielten": a German simple past (the present ends
    in -t, -st, -e or -en)."""
    text = verb.text
    if verb.lemma == text or text in _GERMAN_MODALS:
        return False
    return text.endswith(("te", "ten")) or not text.endswith(("t", "st", "e", "en"))


def _event_of(predicate: PredicateClass | None, main) -> bool:
    """Whether a past tense tells an event. Of a slot that holds one value, the past says
    the state ("deployed CEMS on Hetzner" is where it is deployed) unless a time says when
    ("worked at Initech in 2019")."""
    if predicate is None or predicate.slot != "one":
        return True
    return any(_timely(t) or (t.value.startswith("number:") and len(t.text) == 4) for t in main)


def _is_event(main, predicate_at: int, predicate, language: str, folded: str) -> bool:
    """Something that happened (a past tense of a predicate other than "be"), not a
    state that holds: "Swam 2 km on Monday", "Visited Rome in 2019", "A visité Lisbonne",
    "周一跑了5公里"."""
    if predicate_at < 0 or (predicate is not None and predicate.name == "be"):
        return False
    verb = main[predicate_at]
    before = {t.text for t in main[max(0, predicate_at - 3) : predicate_at]}
    if language == "en":
        if verb.text in ("had", "did", "got", "was", "were") or (
            verb.lemma != verb.text and not verb.text.endswith(("s", "ing"))
        ):
            return not before & {"is", "are", "am", "be"}  # "is learning" is no event
        return False
    past_auxiliaries = _per_language("past_auxiliaries", language)
    if language in ("de", "fr"):
        participles = [t for t in main[predicate_at:] if _participle(t, language)]
        has_auxiliary = bool(before & past_auxiliaries) or any(
            t.text in past_auxiliaries for t in main[:predicate_at]
        )
        if language == "fr" and not has_auxiliary and verb.lemma in words("markers", "movement_fr"):
            has_auxiliary = bool(before & {"est", "sont", "suis", "es"})  # "s'est installée"
        if language == "de" and _german_past(verb):
            return True
        return has_auxiliary and bool(participles or _participle(verb, language))
    if language == "zh":
        return "了" in folded or "过" in folded
    return False
