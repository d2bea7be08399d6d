"""Server time of a curator's decisions on a store of 5,000 short memories in four
namespaces (700 facts each, 550 of them written again from a second source), found by
find_duplicates as a nightly run finds them. Called by bench/review_pages.py.

Each figure is one request as a browser sends it: the page is read, its form filled as a
person would (ticks, hidden versions, the text shown), and only the decision's request
is timed, in-process (middleware, queries, writes, template). Every decision is undone
after it is timed (the undo timed too), so the store is the same for the next run.
"""

from __future__ import annotations

import json
import random
import statistics
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

from synthetic import sentences

NAMESPACES = [f"day-{i}" for i in range(4)]
FACTS, COPIES = 700, 550  # a namespace: 1,250 memories


class Forms(HTMLParser):
    """The forms of a page as a browser submits them: each form's action and its fields
    (a tick box only when ticked, a textarea's text), inputs tied by `form=` included."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.forms: list[dict] = []
        self._by_id: dict[str, dict] = {}
        self._open: dict | None = None
        self._textarea: tuple[dict, str] | None = None
        self._loose: list[tuple[str, str, str]] = []
        self.boxes: list[tuple[str, str]] = []  # every tick box, ticked or not
        self.feed(html)
        for form_id, name, value in self._loose:
            if form_id in self._by_id:
                self._by_id[form_id]["fields"].append((name, value))

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "form":
            self._open = {"action": found.get("action", ""), "fields": []}
            self.forms.append(self._open)
            if found.get("id"):
                self._by_id[found["id"]] = self._open
        elif tag == "input" and found.get("name"):
            if found.get("type") == "checkbox":
                self.boxes.append((found["name"], found.get("value", "")))
            if found.get("type") in ("checkbox", "radio") and "checked" not in found:
                return
            field = (found["name"], found.get("value", ""))
            if found.get("form"):
                self._loose.append((found["form"], *field))
            elif self._open is not None:
                self._open["fields"].append(field)
        elif tag == "textarea" and found.get("name") and self._open is not None:
            self._textarea = (self._open, found["name"])

    def handle_data(self, data):
        if self._textarea is not None:
            form, name = self._textarea
            form["fields"].append((name, data))
            self._textarea = None

    def handle_endtag(self, tag):
        if tag == "form":
            self._open = None

    def form(self, action: str) -> dict:
        return next(f for f in self.forms if f["action"].split("?")[0] == action)


def fields(form: dict, **more) -> dict:
    """A form's fields as Django's test client posts them (repeated names as lists)."""
    found: dict[str, list[str]] = {}
    for name, value in form["fields"]:
        found.setdefault(name, []).append(value)
    for name, value in more.items():
        found[name] = value if isinstance(value, list) else [value]
    return {name: values if len(values) > 1 else values[0] for name, values in found.items()}


def make_store() -> None:
    """Four namespaces of 1,250 memories: 700 facts of the synthetic templates (their
    values collide: conflicts and paraphrases among them) and 550 of them written again
    from the agent (the first from chat), imported and found as a nightly run does."""
    from django.core.management import call_command

    from memadmin.store.models import Namespace

    if Namespace.objects.filter(name=NAMESPACES[0]).exists():
        return
    rng = random.Random(11)
    lines = []
    for number, namespace in enumerate(NAMESPACES):
        facts = sentences(FACTS, seed=100 + number)
        for index, text in enumerate(facts):
            day = f"2026-{1 + index % 9:02d}-{1 + index % 27:02d}T10:00:00Z"
            common = {"namespace": namespace, "content": text, "created_at": day}
            lines.append({"id": f"{namespace}-c{index}", "source_ref": "chat", **common})
        for index in rng.sample(range(FACTS), COPIES):
            lines.append(
                {
                    "id": f"{namespace}-a{index}",
                    "namespace": namespace,
                    "content": facts[index],
                    "created_at": f"2026-10-{1 + index % 28:02d}T10:00:00Z",
                    "source_ref": "agent",
                }
            )
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as out:
        out.write("\n".join(json.dumps(line) for line in lines) + "\n")
    call_command("import_memories", out.name)
    Path(out.name).unlink()
    for namespace in NAMESPACES:
        call_command("find_duplicates", "--namespace", namespace, "--full")
    call_command("propose_merges")


def timed(call) -> tuple[float, object]:
    started = time.perf_counter()
    response = call()
    return (time.perf_counter() - started) * 1000, response


def page(client, url: str) -> Forms:
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return Forms(response.content.decode())


def undo_toast(client, after) -> tuple[float, int]:
    """Follow a decision's redirect and press its undo toast: (ms, status)."""
    forms = Forms(client.get(after["Location"]).content.decode())
    toast = next(f for f in forms.forms if "undo" in f["action"] or "unmerge" in f["action"])
    ms, response = timed(lambda: client.post(toast["action"], fields(toast)))
    return ms, response.status_code


def accept_one(client, repeat: int) -> tuple[float, float]:
    """Accept `repeat` clusters one by one from their pages (HTMX, as the page sends
    it); each undone from History. Medians (accept, undo) in ms."""
    from memadmin.curation.models import Cluster

    chosen = list(
        Cluster.objects.filter(status="open", tier="proposed", namespace__name__in=NAMESPACES)
        .order_by("pk")
        .values_list("pk", flat=True)[:repeat]
    )
    accepts, undos = [], []
    for pk in chosen:
        form = page(client, f"/clusters/{pk}/").form(f"/clusters/{pk}/accept")
        ms, response = timed(
            lambda pk=pk, form=form: client.post(
                f"/clusters/{pk}/accept", fields(form), HTTP_HX_REQUEST="true"
            )
        )
        assert response.status_code == 200 and Cluster.objects.get(pk=pk).status == "accepted"
        accepts.append(ms)
        ms, response = timed(lambda pk=pk: client.post(f"/history/unmerge/{pk}"))
        assert Cluster.objects.get(pk=pk).status == "open", response
        undos.append(ms)
    return statistics.median(accepts), statistics.median(undos)


def batch_of(client, size: int) -> tuple[float, float, float, int]:
    """The batch screen's first page ticked whole (`size` clusters), previewed and
    merged, then its undo toast: (preview ms, merge ms, undo ms, merged)."""
    from memadmin.curation.models import Cluster

    forms = page(client, "/clusters/batch/?tier=proposed")
    ticked = [value for name, value in forms.boxes if name == "ticked"][:size]
    form = fields(forms.form("/clusters/batch/decide"), ticked=ticked, action="accept")
    preview_ms, response = timed(lambda: client.post("/clusters/batch/decide", form))
    confirm = fields(Forms(response.content.decode()).form("/clusters/batch/decide"))
    ms, response = timed(lambda: client.post("/clusters/batch/decide", confirm))
    merged = Cluster.objects.filter(pk__in=ticked, status="accepted").count()
    undo_ms, status = undo_toast(client, response)
    assert status == 302 and not Cluster.objects.filter(pk__in=ticked, status="accepted")
    return preview_ms, ms, undo_ms, merged


def exact_copies(client) -> tuple[float, float, float, int]:
    """The exact-copy preview of every namespace, its ticked clusters accepted, and the
    undo toast: (preview ms, accept ms, undo ms, accepted)."""
    from memadmin.curation.models import Cluster

    preview_ms, response = timed(lambda: client.get("/clusters/accept-exact"))
    forms = Forms(response.content.decode())
    form = forms.form("/clusters/accept-exact")
    ticked = [value for name, value in form["fields"] if name == "selected"]
    ms, response = timed(lambda: client.post("/clusters/accept-exact", fields(form)))
    accepted = Cluster.objects.filter(pk__in=ticked, status="accepted").count()
    undo_ms, status = undo_toast(client, response)
    assert status == 302 and not Cluster.objects.filter(pk__in=ticked, status="accepted")
    return preview_ms, ms, undo_ms, accepted


def previews(client, size: int, repeat: int) -> dict[str, float]:
    """Medians (ms) of the bulk previews of `size` ticked clusters and conflicts."""
    from memadmin.curation.models import Cluster, Conflict

    open_ = {"status": "open", "namespace__name__in": NAMESPACES}
    clusters = Cluster.objects.filter(**open_, tier="proposed").values_list("pk", flat=True)
    conflicts = Conflict.objects.filter(**open_).values_list("pk", flat=True)
    chosen = "&".join(f"selected={pk}" for pk in clusters[:size])
    settled = "&".join(f"selected={pk}" for pk in conflicts[:size])
    found = {}
    for name, url in (
        (f"accept {size} ticked clusters", f"/clusters/selected?action=accept&{chosen}"),
        (f"settle {size} ticked conflicts", f"/conflicts/selected?action=b_supersedes_a&{settled}"),
        ("accept the exact copies of every namespace", "/clusters/accept-exact"),
    ):
        times = [timed(lambda url=url: client.get(url))[0] for _ in range(repeat)]
        found[name] = statistics.median(times)
    return found


def settle_one(client, repeat: int) -> tuple[float, float]:
    """Settle `repeat` conflicts "B supersedes A" from their pages, each undone from its
    page: medians (settle, undo) in ms."""
    from memadmin.curation.models import Conflict

    chosen = Conflict.objects.filter(status="open", namespace__name__in=NAMESPACES)
    settles, undos = [], []
    for number in range(repeat):
        # The next open one, read again: each is undone before the next is chosen.
        pk = chosen.order_by("pk").values_list("pk", flat=True)[number]
        form = fields(page(client, f"/conflicts/{pk}/").form(f"/conflicts/{pk}/resolve"),
                      resolution="b_supersedes_a")  # fmt: skip
        ms, _ = timed(lambda pk=pk, form=form: client.post(f"/conflicts/{pk}/resolve", form))
        assert Conflict.objects.get(pk=pk).status == "resolved"
        settles.append(ms)
        undo = fields(page(client, f"/conflicts/{pk}/").form(f"/conflicts/{pk}/undo"))
        ms, _ = timed(lambda pk=pk, undo=undo: client.post(f"/conflicts/{pk}/undo", undo))
        assert Conflict.objects.get(pk=pk).status == "open"
        undos.append(ms)
    return statistics.median(settles), statistics.median(undos)


def report(client, repeat: int) -> None:
    """Print every figure of a curator's day (issue 49, item 9), each with its bound."""
    from memadmin.curation.models import Cluster, Conflict
    from memadmin.store.models import Memory

    make_store()
    in_day = {"namespace__name__in": NAMESPACES}
    print(
        f"a curator's day: {Memory.objects.filter(status='active', **in_day).count():,} "
        "active memories, "
        f"{Cluster.objects.filter(status='open', **in_day).count():,} open clusters, "
        f"{Conflict.objects.filter(status='open', **in_day).count():,} open conflicts"
    )
    accept, unmerge = accept_one(client, repeat)
    print(f"  accept one cluster: median {accept:.0f} ms (target <= 150 ms); "
          f"its undo from History {unmerge:.0f} ms")  # fmt: skip
    for name, ms in previews(client, 50, 5).items():
        print(f"  preview, {name}: median {ms:.0f} ms (target <= 500 ms)")
    preview, merge, undo, merged = batch_of(client, 50)
    print(f"  batch screen, {merged} ticked: preview {preview:.0f} ms (target <= 500 ms), "
          f"merge {merge / 1000:.2f} s (target <= 3 s), its undo {undo / 1000:.2f} s "
          "(target <= 2 s)")  # fmt: skip
    preview, accepted_ms, undo, accepted = exact_copies(client)
    print(f"  exact copies: preview {preview:.0f} ms, {accepted} accepted in "
          f"{accepted_ms / 1000:.2f} s (target <= 15 s for 500), one undo "
          f"{undo / 1000:.2f} s")  # fmt: skip
    settle, undo = settle_one(client, repeat)
    print(f"  settle one conflict: median {settle:.0f} ms; undo one settlement "
          f"{undo:.0f} ms")  # fmt: skip
