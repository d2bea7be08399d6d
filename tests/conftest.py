import io
import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command

# The labelled development set lives beside the repository (../shared/data/dev).
DEV_DATA = Path(settings.BASE_DIR).parent / "shared" / "data" / "dev"


@pytest.fixture
def dev_memories_path() -> Path:
    path = DEV_DATA / "memories.jsonl"
    if not path.exists():
        pytest.skip(f"the labelled dev set is not beside the repository ({DEV_DATA})")
    return path


@pytest.fixture
def dev_labels_path() -> Path:
    path = DEV_DATA / "labels.json"
    if not path.exists():
        pytest.skip(f"the labelled dev set is not beside the repository ({DEV_DATA})")
    return path


@pytest.fixture
def dev_labels(dev_labels_path) -> dict:
    return json.loads(dev_labels_path.read_text())


@pytest.fixture
def write_jsonl(tmp_path):
    """Write dicts (or raw strings) as a JSONL file; return its path."""

    def write(lines, name="memories.jsonl") -> Path:
        path = tmp_path / name
        path.write_text(
            "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
        )
        return path

    return write


class CommandResult:
    def __init__(self, stdout: str, stderr: str, error: Exception | None):
        self.stdout, self.stderr, self.error = stdout, stderr, error


@pytest.fixture
def run_command():
    """Call a management command; return its stdout, stderr and CommandError (if any)."""
    from django.core.management.base import CommandError

    def run(*args, **options) -> CommandResult:
        out, err = io.StringIO(), io.StringIO()
        try:
            call_command(*args, stdout=out, stderr=err, **options)
        except CommandError as error:
            return CommandResult(out.getvalue(), err.getvalue(), error)
        return CommandResult(out.getvalue(), err.getvalue(), None)

    return run


@pytest.fixture
def load(run_command, write_jsonl):
    """Import memory lines (tests.factories.line) through import_memories."""

    def load_lines(*lines, name="memories.jsonl"):
        result = run_command("import_memories", str(write_jsonl(list(lines), name=name)))
        assert result.error is None, result.stderr

    return load_lines


@pytest.fixture
def fake_llm(monkeypatch, settings):
    """A local fake Anthropic API with the real SDK pointed at it."""
    from tests.fake_anthropic import FakeAnthropic

    with FakeAnthropic() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key-not-secret")
        settings.LLM_MAX_RETRIES = 2
        # Its answers are scripted for the band's prompts: no audit takes its calls (the
        # audit is tested with the oracle judge, tests/curation/test_llm_band.py).
        settings.LLM_AUDIT_SHARE = 0.0
        yield fake


@pytest.fixture(autouse=True)
def no_llm_by_default(monkeypatch):
    """Tests never reach a real LLM: without the fake_llm fixture, no key is set."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
