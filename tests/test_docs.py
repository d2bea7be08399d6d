"""The manual builds: MkDocs in strict mode (a broken link, a page missing from the
navigation, a missing image fails), as `make docs` builds it; the README stays short."""

import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)


def test_the_docs_site_builds_strictly(tmp_path):
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr[-3000:]
    assert (tmp_path / "detection" / "index.html").exists()


def test_the_readme_is_read_in_five_minutes_and_its_links_lead_somewhere():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) < 200
    for target in ("docs/index.md", "docs/detection.md", "docs/images/cluster.png"):
        assert target in readme and (ROOT / target).exists(), target
