"""The one validation layer: each limit, at its edge and beyond."""

import math
from datetime import UTC, datetime

import pytest

from memadmin.store import validation
from memadmin.store.validation import Invalid


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("0001-01-01T00:00:00+05:00", "between 1970-01-01 and 9999-12-31"),
        ("0000-01-01T00:00:00Z", "not a real date and time (year 0 is out of range)"),
        ("2026-02-30T00:00:00Z", "not a real date and time (day is out of range"),
        ("2026-02-03T25:00:00Z", "not a real date and time (hour must be in 0..23)"),
        ("2026-01-01T00:00:00+25:00", "not a real date and time (offset must be"),
        ("1969-12-31T23:59:59Z", "between 1970-01-01 and 9999-12-31"),
        ("9999-12-31T23:59:59-01:00", "between 1970-01-01 and 9999-12-31"),
        ("last tuesday", "ISO 8601"),
        ("2" * 5000, "ISO 8601"),
        (20260101, "ISO 8601"),
    ],
)
def test_impossible_and_unreadable_dates_are_refused(value, reason):
    with pytest.raises(Invalid, match="created_at") as refused:
        validation.timestamp(value, "created_at")

    assert reason in str(refused.value)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1970-01-01T00:00:00Z", datetime(1970, 1, 1, tzinfo=UTC)),
        ("9999-12-31T23:59:59.999999Z", datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
        ("2026-03-01 10:00+05:30", datetime(2026, 3, 1, 4, 30, tzinfo=UTC)),
        ("2026-03-01", datetime(2026, 3, 1, tzinfo=UTC)),
    ],
)
def test_dates_in_range_are_read_in_utc(value, expected):
    assert validation.timestamp(value, "created_at") == expected


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("a\x00b", "NUL"),
        ("a\ud800b", "lone surrogate"),
        ("   ", "non-empty"),
        (3, "must be a string"),
        ("x" * 8193, "longer than 8192 bytes"),
        ("é" * 4097, "longer than 8192 bytes"),  # 8,194 bytes in UTF-8
    ],
)
def test_content_that_cannot_be_stored_is_refused(value, reason):
    with pytest.raises(Invalid) as refused:
        validation.content(value)

    assert reason in str(refused.value)


def test_content_of_exactly_the_limit_is_kept():
    assert validation.content("x" * 8192) == "x" * 8192


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ({"a": math.nan}, "NaN or Infinity"),
        ({"a": [1, {"b": math.inf}]}, "NaN or Infinity"),
        ({"a": 10**500}, "more than 400 digits"),
        ({"a\x00": 1}, "key that is not readable"),
        ({"a": "b\x00"}, "NUL"),
        ({"a": "\udfff"}, "lone surrogate"),
        ({"a": object()}, "JSON cannot store"),
    ],
)
def test_metadata_must_read_back(value, reason):
    with pytest.raises(Invalid) as refused:
        validation.json_value(value, "metadata", kind=dict)

    assert reason in str(refused.value)


def test_nesting_is_limited_without_exhausting_the_stack():
    deep: list = []
    for _ in range(50_000):
        deep = [deep]

    with pytest.raises(Invalid, match="nested more than 20 levels"):
        validation.json_value({"a": deep}, "metadata", kind=dict)
    nested: dict = {}
    for _ in range(19):
        nested = {"n": nested}
    assert validation.json_value(nested, "metadata", kind=dict) == nested


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b'{"a": NaN}', "NaN is not a number"),
        (b'{"a": -Infinity}', "-Infinity is not a number"),
        (b'{"a": ' + b"9" * 5000 + b"}", "a number of 5000 characters"),
        (b'{"a": 1e999}', "beyond the range of a number"),
        (b"[" * 100_000 + b"]" * 100_000, "nested more than"),
        (b'{"a": "\xff"}', "invalid UTF-8"),
        (b'{"a": ', "invalid JSON"),
    ],
)
def test_json_text_is_decoded_strictly(raw, reason):
    with pytest.raises(Invalid) as refused:
        validation.decode_json(raw)

    assert reason in refused.value.message


@pytest.mark.parametrize(
    ("value", "field", "check", "reason"),
    [
        (["t" * 101], "tags", validation.tags, "at most 100 characters"),
        ("i" * 201, "id", validation.identifier, "longer than 200"),
        (10**40, "id", validation.identifier, "must be a string"),
        ("alice\n", "namespace", validation.namespace_name, "letters, digits"),
        ("al ice", "namespace", validation.namespace_name, "letters, digits"),
        ("n" * 101, "namespace", validation.namespace_name, "letters, digits"),
        (2**31, "access_count", validation.count, "from 0 to 2147483647"),
        (True, "access_count", validation.count, "whole number"),
    ],
)
def test_names_and_counts_are_refused_never_cut(value, field, check, reason):
    with pytest.raises(Invalid) as refused:
        check(value, field)

    assert reason in str(refused.value)


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ([1e7] + [0.0] * 383, "beyond ±1e+06"),
        ([1e-9] * 384, "all zeros"),
        ([math.nan] * 384, "finite numbers"),
        (["0.1"] * 384, "finite numbers"),
    ],
)
def test_a_given_vector_must_have_a_direction_float32_can_hold(value, reason):
    with pytest.raises(Invalid) as refused:
        validation.embedding(value, 384)

    assert reason in str(refused.value)


@pytest.mark.parametrize("value", ["0", "101", "1" * 5000, "-1", "1.0", "١٢", ""])
def test_a_query_number_out_of_its_range_is_refused(value):
    with pytest.raises(Invalid, match="whole number from 1 to 100"):
        validation.whole_number(value, "k", low=1, high=100)
