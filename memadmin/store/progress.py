"""Progress bars for long commands, on stderr so stdout stays clean for JSON output."""

from __future__ import annotations

import sys

from tqdm import tqdm


def progress_bar(*, total: int, desc: str, unit: str = "memories", scale: bool = False) -> tqdm:
    """`scale` shows big counts as 2.5G rather than 2500000000."""
    # Short jobs finish before the first refresh and print nothing but the final line.
    return tqdm(
        total=total,
        desc=desc,
        unit=f" {unit}",
        unit_scale=scale,
        file=sys.stderr,
        mininterval=1.0,
    )
