"""The set-based writes every batch decision goes through (decisions.history): COPY of new
rows and UPDATE ... FROM VALUES, read back exactly, whatever the text holds."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memadmin.curation import decisions
from memadmin.curation.decisions.history import (
    _json_text,
    insert_rows,
    snapshot,
    unsaved,
    update_rows,
)
from memadmin.curation.models import Cluster, ClusterMember, ClusterStatus, HistoryEvent
from memadmin.store.models import Memory
from tests.factories import line, store, unit

pytestmark = pytest.mark.django_db

# What COPY's text format must escape, and what JSON must keep.
AWKWARD = 'Tab\there, new\nline, back\\slash \\N, "quotes", \\., ü 林 🙂'


def test_a_fold_of_awkward_text_reads_back_exactly_from_its_history():
    survivor, copy = store(
        line("a", AWKWARD, unit(1), tags=["t\tab", "\\N"], metadata={"k\n": AWKWARD}),
        line(
            "b",
            AWKWARD.lower(),
            unit(1),
            tags=["new\\tag", "{a,b}", '"q"', "NULL"],
            metadata={"x": [None, 1.5]},
        ),
    )

    decisions.fold_many(
        [
            decisions.Fold(
                survivor,
                [copy],
                [{"a": survivor.pk, "b": copy.pk, "similarity": 1.0, "method": "exact"}],
                "collapse",
                "exact duplicate",
            )
        ],
        actor="test",
    )

    survivor.refresh_from_db()
    copy.refresh_from_db()
    assert survivor.tags == ["t\tab", "\\N", "new\\tag", "{a,b}", '"q"', "NULL"]
    assert copy.status == "superseded" and copy.superseded_by_id == survivor.pk
    collapse = HistoryEvent.objects.get(action="collapse")
    supersede = HistoryEvent.objects.get(action="supersede")
    assert collapse.after == snapshot(survivor) and supersede.after == snapshot(copy)
    assert collapse.before["content"] == AWKWARD and collapse.before["tags"] == ["t\tab", "\\N"]
    assert supersede.before["metadata"] == {"x": [None, 1.5]}
    assert collapse.cluster_id == supersede.cluster_id is not None  # the new cluster's key
    assert Cluster.objects.get(pk=collapse.cluster_id).status == ClusterStatus.AUTO_MERGED


def test_inserted_rows_get_keys_in_order_and_an_empty_json_field_stays_null():
    (memory,) = store(line("a", "Prefers tea.", unit(1)))
    events = [
        HistoryEvent(
            namespace_id=memory.namespace_id, memory=memory, action="edit", actor="test", after={}
        )
        for _ in range(3)
    ]

    insert_rows(events)

    keys = [event.pk for event in events]
    assert keys == sorted(keys) and len(set(keys)) == 3
    assert (
        list(HistoryEvent.objects.filter(pk__in=keys).order_by("pk").values_list("before", "after"))
        == [(None, {})] * 3
    )
    assert not events[0]._state.adding


def test_updated_rows_keep_each_value_of_their_own():
    first, second = store(line("a", "Prefers tea.", unit(1)), line("b", "Likes Lyon.", unit(2)))
    first.tags, first.provenance, first.importance = ["x\ty"], [{"k": AWKWARD}], 0.25
    second.tags, second.provenance, second.importance = [], [], 1.0

    update_rows([first, second], ["tags", "provenance", "importance"])

    assert list(
        Memory.objects.order_by("external_id").values_list("tags", "provenance", "importance")
    ) == [(["x\ty"], [{"k": AWKWARD}], 0.25), ([], [], 1.0)]


@pytest.mark.parametrize(
    ("model", "values"),
    [
        (
            HistoryEvent,
            {
                "action": "merge",
                "actor": "test",
                "user": None,
                "before": {"content": "a"},
                "reason": "r",
                "related_memory_ids": [1],
            },
        ),
        (ClusterMember, {}),
        (Cluster, {"status": ClusterStatus.AUTO_MERGED, "edges": [], "flags": ["merge"]}),
    ],
)
def test_an_unsaved_row_is_what_the_models_own_constructor_makes(model, values):
    (memory,) = store(line("a", "Prefers tea.", unit(1)))
    cluster = Cluster(namespace_id=memory.namespace_id)  # not saved: no key yet
    related = {
        HistoryEvent: {"namespace_id": memory.namespace_id, "memory": memory, "cluster": cluster},
        ClusterMember: {"cluster": cluster, "memory": memory},
        Cluster: {"namespace_id": memory.namespace_id},
    }[model]

    fast, django = unsaved(model, **related, **values), model(**related, **values)

    assert vars(fast).keys() == vars(django).keys()
    assert {k: v for k, v in vars(fast).items() if k != "_state"} == {
        k: v for k, v in vars(django).items() if k != "_state"
    }
    assert fast._state.fields_cache == django._state.fields_cache
    assert (fast._state.adding, fast._state.db) == (django._state.adding, django._state.db)
    # Defaults are made per row, never shared: a list default is a new list.
    for name, value in vars(fast).items():
        if isinstance(value, list | dict) and name not in values:
            assert value is not getattr(unsaved(model, **related, **values), name)
    # Written like any row: the new cluster first, then what points at it.
    insert_rows([cluster])
    insert_rows([fast])
    assert model.objects.filter(pk=fast.pk).exists()


def test_an_unsaved_row_of_a_field_the_model_lacks_is_refused():
    with pytest.raises(TypeError, match="no field 'colour'"):
        unsaved(ClusterMember, colour="red")


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)  # past 64 bits: json.dumps writes them
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(JSON_VALUES)
def test_json_text_of_a_snapshot_reads_back_as_the_value(value):
    assert json.loads(_json_text(value)) == value
