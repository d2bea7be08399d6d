"""An incremental run reads what its new memories need, not every vector and every text:
the few new memories compared with all in PostgreSQL (the "database" route), only they and
the memories they pair with read whole (a narrow read), and the namespace's counts
(curation.detection.candidates.counts) and the frames of its short memories kept from the
last run and brought up to date. All must leave exactly what reading everything leaves."""

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from memadmin.curation import decisions, runs
from memadmin.curation.detection.candidates import neighbours as detect
from memadmin.curation.detection.candidates.counts import Counts
from memadmin.curation.models import Conflict, DedupRun, KeptCounts
from memadmin.curation.runs import counting, routes
from memadmin.store import queries as store_queries
from memadmin.store.models import Memory, MemoryStatus, Namespace
from tests.factories import run_state

pytestmark = pytest.mark.django_db(transaction=True)

NEW_PER_NAMESPACE = 12  # the last memories of each dev namespace arrive after a first run


def run_all(prefix: str, **options) -> None:
    namespaces = list(Namespace.objects.filter(name__startswith=prefix).order_by("name"))
    runs.run_many(namespaces, runs.Options(**options), workers=1, on_done=lambda outcome: None)


def dev_set_in_two_parts(dev_memories_path, prefix: str) -> tuple[list[dict], list[dict]]:
    lines = [json.loads(text) for text in dev_memories_path.read_text().splitlines()]
    lines = [{**entry, "namespace": prefix + entry["namespace"]} for entry in lines]
    seen: Counter = Counter(entry["namespace"] for entry in lines)
    first, later = [], []
    for entry in reversed(lines):
        if seen[entry["namespace"]] > 0 and len(later) < 5 * NEW_PER_NAMESPACE:
            in_later = sum(1 for e in later if e["namespace"] == entry["namespace"])
            if in_later < NEW_PER_NAMESPACE:
                later.append(entry)
                continue
        first.append(entry)
    return first[::-1], later[::-1]


def test_an_incremental_run_in_the_database_leaves_what_reading_every_vector_leaves(
    run_command, write_jsonl, dev_memories_path, settings, monkeypatch
):
    read_narrow = []
    narrow = routes.narrow

    def spy(light, kept, thresholds):
        found = narrow(light, kept, thresholds)
        read_narrow.extend(
            (len(found[pk].memories), len(found[pk].every)) for pk in found if light[pk].fresh
        )
        return found

    monkeypatch.setattr(routes, "narrow", spy)
    for prefix, most_compared_there in (("matrix-", 0), ("database-", 25)):
        settings.DEDUP_DATABASE_MAX_QUERIES = most_compared_there
        first, later = dev_set_in_two_parts(dev_memories_path, prefix)
        assert run_command("import_memories", str(write_jsonl(first, name=prefix))).error is None
        run_all(prefix)
        assert (
            run_command("import_memories", str(write_jsonl(later, name=prefix + "2"))).error is None
        )
        run_all(prefix)
        incremental = DedupRun.objects.filter(namespace__name__startswith=prefix).order_by("pk")[5:]
        assert len(incremental) == 5
        assert {run.parameters["route"] for run in incremental} == (
            {"matrix"} if most_compared_there == 0 else {"database"}
        )
    # The namespaces of one language were read narrow: not every memory (12 of about 45
    # are new here, and the dev set's memories pair with many).
    assert len(read_narrow) >= 2
    assert all(memories < every for memories, every in read_narrow), read_narrow
    matrix, database = run_state("matrix-"), run_state("database-")
    assert len(matrix["clusters"]) > 10 and len(matrix["conflicts"]) > 10
    # Each part alone, and what differs in full: a difference was seen once in a full run
    # and never again, and pytest cuts long lists short.
    for part in matrix:
        only_database = [item for item in database[part] if item not in matrix[part]]
        only_matrix = [item for item in matrix[part] if item not in database[part]]
        assert database[part] == matrix[part], (part, only_database, only_matrix)


def active_counts(namespace: Namespace) -> Counts:
    return Counts.of(
        Memory.objects.filter(namespace=namespace, status=MemoryStatus.ACTIVE).values_list(
            "content", flat=True
        )
    )


def keys_and_texts(memory_ids) -> dict[int, str]:
    """MEMORY_KEY -> text of the given memories, as PostgreSQL computes the key."""
    return {key: text for text, key in store_queries.texts_by_id(memory_ids).values()}


def assert_kept_counts_are_a_full_count(prefix: str) -> None:
    """Each namespace's kept counts and frames are what reading the memories they name
    gives (as they are now), and those are its active memories."""
    for namespace in Namespace.objects.filter(name__startswith=prefix):
        kept = KeptCounts.objects.get(namespace=namespace)
        keys = np.frombuffer(kept.memories, dtype=np.int64)
        active = Memory.objects.filter(namespace=namespace, status=MemoryStatus.ACTIVE)
        texts = keys_and_texts(list(active.values_list("pk", flat=True)))
        assert sorted(texts) == keys.tolist()
        everything = Counts.of(texts.values())
        terms, openings, told = json.loads(kept.counted)
        assert kept.documents == everything.documents == len(texts)
        assert (terms, openings, told) == (everything.terms, everything.openings, everything.told)
        frames = {key: detect.frame_of(text) for key, text in texts.items()}
        assert counting.kept_for([namespace.pk])[namespace.pk].frames == {
            key: frame for key, frame in frames.items() if frame is not None
        }


def test_kept_counts_are_what_counting_every_active_memory_gives_after_folds_edits_and_forgets(
    run_command, write_jsonl, dev_memories_path, monkeypatch
):
    first, later = dev_set_in_two_parts(dev_memories_path, "kept-")
    assert run_command("import_memories", str(write_jsonl(first, name="first"))).error is None
    run_all("kept-")  # folds exact copies and near-identical ones

    # New memories, one edited, one forgotten: the next run counts only those.
    edited = {**first[3], "content": first[3]["content"] + " (Edited by the agent.)"}
    assert (
        run_command("import_memories", str(write_jsonl([*later, edited], name="l"))).error is None
    )
    forgotten = Memory.objects.filter(namespace__name__startswith="kept-", status="active").last()
    decisions.forget_memory(memory=forgotten, reason="asked to", actor="agent:test")
    texts_counted = []
    counting_all = Counts.of

    def spy(texts):
        texts = list(texts)
        texts_counted.append(len(texts))
        return counting_all(texts)

    monkeypatch.setattr(counting.Counts, "of", staticmethod(spy))
    run_all("kept-")
    monkeypatch.undo()
    run_all("kept-")  # nothing new: the counts follow what the last run folded
    assert_kept_counts_are_a_full_count("kept-")
    # The edited memory's namespace was counted again whole (its old text is not kept);
    # the others counted only what came and went: their new memories, those the first
    # run folded, the one forgotten.
    whole = [size for size in texts_counted if size >= 30]
    assert len(whole) == 1 and whole[0] >= 38, texts_counted
    assert all(size < 20 for size in texts_counted if size not in whole), texts_counted


def read_whole(namespace: Namespace) -> dict[int, store_queries.DetectionInput]:
    return store_queries.detection_batch([namespace.pk], with_vectors=False)


def test_counts_made_under_other_rules_are_counted_again(run_command, load):
    from tests.factories import line, unit

    load(
        line("a", "Alice lives in Lyon.", unit(1), namespace="rules"),
        line("b", "Alice has a cat called Miso.", unit(2), namespace="rules"),
    )
    run_all("rules")
    namespace = Namespace.objects.get(name="rules")
    kept = KeptCounts.objects.get(namespace=namespace)
    assert kept.version == counting.rules_version()
    assert counting.kept_for([namespace.pk])
    KeptCounts.objects.filter(pk=kept.pk).update(version="0" * 16, counted='[{"stale": 9}, {}, {}]')
    assert counting.kept_for([namespace.pk]) == {}
    found = counting.counts_for(read_whole(namespace), counting.kept_for([namespace.pk]))
    assert found[namespace.pk].counts == active_counts(namespace)


def test_the_rules_version_covers_every_reader_of_the_kept_frames():
    # The frames are read by the readers (keytokens' frame words): a change to a reader
    # must count the kept frames again.
    from memadmin.curation.detection.reading import german, keytokens

    files = counting.rule_files()
    assert Path(keytokens.__file__) in files and Path(german.__file__) in files


def test_a_kept_count_that_cannot_be_read_is_counted_again(load):
    from tests.factories import line, unit

    load(line("a", "Alice lives in Lyon.", unit(1), namespace="torn"))
    run_all("torn")
    namespace = Namespace.objects.get(name="torn")
    good = KeptCounts.objects.get(namespace=namespace)
    for counted, memories, frames in (
        ("{not json", b"\x01" * 16, good.frames),
        ("[1, 2, 3]", b"\x01\x02\x03", good.frames),
        (good.counted, good.memories, '[[1, "live:"]]'),
        (good.counted, good.memories, "{torn"),
    ):
        KeptCounts.objects.filter(namespace=namespace).update(
            counted=counted, memories=memories, frames=frames
        )
        kept = counting.kept_for([namespace.pk])
        assert kept == {}
        found = counting.counts_for(read_whole(namespace), kept)
        assert found[namespace.pk].counts == active_counts(namespace)


def test_a_narrow_run_reads_no_old_text_and_finds_what_only_the_frames_pair(load, monkeypatch):
    """ "Lives in Porto" / "Moved to Lyon in 2024": MiniLM's cosine says little (0.32), the
    frames pair them. In a narrow run the old memory's frame comes from what the last run
    kept: only the new memories' texts are read (their frames made), and the old ones are
    read whole only when a layer pairs them with a new one."""
    from tests.factories import line, unit

    older = [
        line("porto", "Lives in Porto.", unit(1), namespace="frames"),
        *(
            line(
                f"m{i}",
                f"Keeps {i} jars of honey from the valley in the pantry.",
                unit(10 + i),
                namespace="frames",
            )
            for i in range(12)
        ),
    ]
    load(*older)
    run_all("frames")
    detect._frame_of_short.cache_clear()
    framed, read = [], []
    frame_of, memories_by_id = detect.frame_of, store_queries.memories_by_id

    def counting_frames(text):
        framed.append(text)
        return frame_of(text)

    def reading(ids):
        read.extend(ids)
        return memories_by_id(ids)

    monkeypatch.setattr(detect, "frame_of", counting_frames)
    monkeypatch.setattr(store_queries, "memories_by_id", reading)
    load(line("lyon", "Moved to Lyon in 2024.", unit(2), namespace="frames"), name="new.jsonl")
    run_all("frames")
    assert framed == ["Moved to Lyon in 2024."]
    texts = dict(Memory.objects.filter(pk__in=read).values_list("external_id", "content"))
    assert set(texts) == {"porto", "lyon"}, texts
    run = DedupRun.objects.filter(namespace__name="frames").latest("pk")
    assert run.parameters["route"] == "database"
    conflict = Conflict.objects.get(memory_a__namespace__name="frames")
    assert {conflict.memory_a.external_id, conflict.memory_b.external_id} == {"porto", "lyon"}
    monkeypatch.undo()
    assert_kept_counts_are_a_full_count("frames")


def test_a_count_brought_up_to_date_equals_counting_everything():
    texts = [
        "Alice lives in Lyon.",
        "Alice's cat is called Miso.",
        "Alice prefers tea.",
        "User's name is Alice.",
        "用户喜欢喝绿茶。",
        "Ich heiße Jana.",
    ]
    kept = Counts.of(texts[:4])
    kept.remove([texts[1]])
    kept.add(texts[4:])
    assert kept == Counts.of([texts[0], *texts[2:]])
    assert kept.user_names() == frozenset({"alice", "jana"})
    kept.remove(texts[2:])
    assert kept == Counts.of([texts[0]])
    assert kept.user_names() == frozenset()
