"""Page benchmark: server time of every page's first run and of a rerun after each widget, and concurrent sessions.

Run: ``.venv/bin/python benchmarks/bench_pages.py [--quick] [--pages home,compare] [--before PATH]``.

Every figure is **server time** (no browser rendering): from the request to the end of the page's script.
What a visitor waits for is one of two "first runs", and both are reported:

* **the first visitor of a freshly started server** pays the server's imports (Streamlit's elements, pandas,
  Plotly, scipy, the engine: about 0.6–1 s on a quiet 2-core machine) on top of the page itself: once per
  server start;
* **every later visitor** (a new session in a running server) pays only the page's script, with the imports
  and the shared caches warm. The goal "a page's first run ≤ 1 s" is about this figure, which is what
  visitors wait for; the cold figure is reported beside it.

Four measurements:

1. **Script runs in-process** (``streamlit.testing.v1.AppTest``), one fresh Python process per page. *Cold*:
   the page opened directly (a link to it) as the process's first run, so every import it needs is paid.
   *Warm*: the same page in a second session of that process. Then a rerun after each shared widget (ε, δ,
   seed, trials and, on Home, the dataset) and after each page widget, moved to a neighbouring value (new
   work where the page depends on it), and a rerun moving it **back** (every result cached: the "rerun that
   needs no new computation"). All AppTests of the process share one compiled-script cache, as a server does
   (AppTest alone would recompile ``app.py`` and the page on every run: 40–90 ms a server pays once). A
   trivial page (one slider, one line of text) measured in the same process is the baseline: every figure is
   also a ratio to what Streamlit itself costs.
2. **First visits on the real server** (``streamlit run app.py`` on a free port, sessions driven over
   Streamlit's websocket protocol): per page, a freshly started server; the first visitor opens the page
   directly, then, once the server is idle, a new visitor opens it (median of 3 servers; ``--warm-compare``
   adds the same with ``app.py``'s warm-up thread switched off, interleaved).
3. **Concurrent sessions on the real server**: 1, 5 and 10 sessions open Home, then each moves the ε slider
   in turn; p50/p95 of the time from sending the new value to the script's end, over every session's reruns.
4. **One heavy run beside a light session**: session A presses "Run the Monte-Carlo sweeps" on the
   Large-margin page (default trials) while session B moves the ε slider on Home; B's p50/p95 rerun time.

``--before PATH`` measures another checkout (for example ``git archive <commit> | tar -x -C PATH``) in the
same run, beside this one, so before/after figures share the machine's load. The Markdown tables are printed
and written to ``docs/performance.md`` (``--out``). Numbers measured on a shared machine vary run to run: read
the ratios measured side by side, not one number alone.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
PY = sys.executable
SHARED_KEYS = {"w_eps_slider": "ε", "w_delta": "δ", "w_seed": "seed", "w_trials": "trials", "w_dataset": "dataset"}
# widgets whose change starts an upload flow or a long run on purpose: not a "widget rerun"
SKIP_KEYS = {"w_source", "w_eps_num"}
TRIVIAL = """
import streamlit as st
x = st.slider("x", 0, 10, 3, key="x")
st.write(f"x = {x}")
"""


# ====================================================================== 1. in-process script runs (child)
def _override_states(overrides: dict) -> None:
    """Let a test replace the serialized state of a widget by id (select sliders, radios by option index)."""
    from streamlit.testing.v1 import element_tree as et

    if getattr(et.ElementTree, "_bench_patched", False):
        return
    original = et.ElementTree.get_widget_states

    def patched(self):
        states = original(self)
        for ws in states.widgets:
            if ws.id in overrides:
                ws.CopyFrom(overrides[ws.id])
        return states

    et.ElementTree.get_widget_states = patched
    et.ElementTree._bench_patched = True


def _change(el, overrides: dict) -> str | None:
    """Move widget ``el`` to a neighbouring value; return a description, or None when it cannot be moved."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    kind = type(el).__name__
    if kind == "SelectSlider":
        opts = list(el.proto.options)
        if len(opts) < 2 or isinstance(el.value, (list, tuple)):
            return None
        shown = str(el.format_func(el.value))
        i = opts.index(shown) if shown in opts else 0
        j = i + 1 if i + 1 < len(opts) else i - 1
        ws = WidgetState(id=el.id)
        ws.string_array_value.data[:] = [opts[j]]
        overrides[el.id] = ws
        return f"{opts[i]} → {opts[j]}"
    if kind in ("Radio", "Selectbox"):
        opts = list(el.options)
        if len(opts) < 2 or el.index is None:
            return None
        j = el.index + 1 if el.index + 1 < len(opts) else el.index - 1
        ws = WidgetState(id=el.id, string_value=opts[j])
        overrides[el.id] = ws
        return f"{opts[el.index]} → {opts[j]}"
    if kind in ("Checkbox", "Toggle"):
        v = bool(el.value)
        el.set_value(not v)
        return f"{v} → {not v}"
    if kind in ("Slider", "NumberInput"):
        v = el.value
        if isinstance(v, (list, tuple)) or v is None:
            return None
        step = el.step or 1
        hi = el.max if el.max is not None else v + 10 * step
        new = v + step if v + step <= hi else v - step
        new = type(v)(new)
        el.set_value(new)
        return f"{v} → {new}"
    return None


def _change_back(el, overrides: dict, what: str) -> bool:
    """Move widget ``el`` back to the value it had before :func:`_change` (``what`` is "old → new")."""
    from streamlit.proto.WidgetStates_pb2 import WidgetState

    old = what.split(" → ", 1)[0]
    kind = type(el).__name__
    if kind == "SelectSlider":
        ws = WidgetState(id=el.id)
        ws.string_array_value.data[:] = [old]
        overrides[el.id] = ws
        return True
    if kind in ("Radio", "Selectbox"):
        overrides[el.id] = WidgetState(id=el.id, string_value=old)
        return True
    if kind in ("Checkbox", "Toggle"):
        el.set_value(old == "True")
        return True
    if kind in ("Slider", "NumberInput"):
        v = el.value
        try:
            el.set_value(type(v)(old.replace(",", "")))
        except (TypeError, ValueError):
            return False
        return True
    return False


def _widgets(at) -> list:
    out = []
    for getter in ("select_slider", "slider", "number_input", "selectbox", "radio", "checkbox", "toggle"):
        for el in getattr(at, getter):
            if el.key and not el.key.startswith("_") and not el.disabled and el.key not in SKIP_KEYS:
                out.append(el)
    return out


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def _one_script_cache() -> None:
    """Give every AppTest of this process one compiled-script cache, as a running server has.

    ``AppTest`` builds a new ``ScriptCache`` for each run, so every rerun would re-read and re-compile
    ``app.py`` and the page (40–90 ms that a server pays once per file); the real server keeps one.
    """
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    cache = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: cache


def child(root: Path, page: str, max_widgets: int | None) -> dict:
    """Measure one page (runs in a fresh process whose working directory is ``root``)."""
    import logging

    logging.disable(logging.WARNING)
    from streamlit.testing.v1 import AppTest

    _one_script_cache()
    res: dict = {"page": page, "widgets": []}
    app = str(root / "app.py")
    at = AppTest.from_file(app, default_timeout=600)
    # cold: the page opened directly (a link to it) in a fresh process: every import the page needs is paid
    res["first_cold"] = _timed(lambda: at.switch_page(page).run())
    res["exception"] = [str(e.value)[:200] for e in at.exception]
    # warm: a new session of the same process (a new visitor of a running server)
    at2 = AppTest.from_file(app, default_timeout=600)
    res["first_warm"] = _timed(lambda: at2.switch_page(page).run())
    # plain rerun (nothing changed)
    res["rerun_same"] = _timed(at2.run)
    overrides: dict = {}
    _override_states(overrides)
    keys = [el.key for el in _widgets(at2)]
    shared = [k for k in keys if k in SHARED_KEYS]
    page_keys = [k for k in keys if k not in SHARED_KEYS]
    if max_widgets is not None:
        page_keys = page_keys[:max_widgets]
    for key in shared + page_keys:
        found = [el for el in _widgets(at2) if el.key == key]
        if not found:
            continue
        overrides.clear()
        what = _change(found[0], overrides)
        if what is None:
            continue
        dt = _timed(at2.run)
        error = bool(at2.exception)
        overrides.clear()
        # back to the previous value: every result is cached, so this rerun needs no new computation
        back = [el for el in _widgets(at2) if el.key == key]
        dt_back = float("nan")
        if back and _change_back(back[0], overrides, what):
            dt_back = _timed(at2.run)
            error = error or bool(at2.exception)
        overrides.clear()
        res["widgets"].append(
            {"key": key, "shared": key in SHARED_KEYS, "change": what, "seconds": dt, "back": dt_back, "error": error}
        )
    # the trivial page, same process, as the baseline
    triv = Path(tempfile.mkdtemp(prefix="bench_pages_")) / "trivial.py"
    triv.write_text(TRIVIAL)
    tt = AppTest.from_file(str(triv), default_timeout=60)
    res["trivial_first"] = _timed(tt.run)
    res["trivial_rerun"] = _timed(lambda: tt.slider(key="x").set_value(5).run())
    return res


def run_children(root: Path, pages: list[str], max_widgets: int | None) -> list[dict]:
    out = []
    for page in pages:
        cmd = [PY, str(Path(__file__).resolve()), "--child", page, "--root", str(root)]
        if max_widgets is not None:
            cmd += ["--max-widgets", str(max_widgets)]
        env = {**os.environ, "PYTHONPATH": str(root)}
        p = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=3600)
        line = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
        if p.returncode or not line:
            out.append({"page": page, "failed": (p.stderr or p.stdout)[-400:]})
            continue
        out.append(json.loads(line[-1]))
        print(f"  {root.name}: {page} measured", file=sys.stderr, flush=True)
    return out


# ====================================================================== 2. the real server, over the websocket
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The app's server (``python -m ui.serve``, or ``streamlit run app.py`` in an older checkout) in ``root`` on a
    free localhost port; stopped by its process id."""

    def __init__(self, root: Path, env: dict | None = None) -> None:
        self.root, self.port = root, free_port()
        self.proc: subprocess.Popen | None = None
        self.env = env or {}

    def __enter__(self) -> Server:
        # what `make run` starts: ui/serve.py (imports done before the first visitor) where the checkout has it
        serve = (self.root / "ui" / "serve.py").exists()
        launch = ["-m", "ui.serve"] if serve else ["-m", "streamlit", "run", "app.py"]
        cmd = [PY, *launch, "--server.port", str(self.port)]
        cmd += ["--server.headless", "true", "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false"]
        env = {**os.environ, "PYTHONPATH": str(self.root), **self.env}
        self.proc = subprocess.Popen(
            cmd, cwd=self.root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        end = time.monotonic() + 120
        import urllib.request

        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.__exit__()
        raise RuntimeError("the server did not start within 120 s")

    def cpu_seconds(self) -> float:
        """CPU time used so far by the server and its child processes (Linux ``/proc``)."""
        total = 0.0
        tick = os.sysconf("SC_CLK_TCK")
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == self.proc.pid or int(pid) == self.proc.pid:  # fields[2]: process group
                total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def warm_up(self, pages: tuple[str, ...] = ("", "large_margin_gaussian"), limit: float = 120.0) -> None:
        """Visit ``pages`` once, then wait until the server is idle (imports, caches, worker start-up done)."""
        s = Session(self.port)
        for page in pages:
            s.rerun(page)
        s.close()
        self.wait_idle(limit)

    def wait_idle(self, limit: float = 120.0) -> None:
        """Wait until the server (and its worker processes) use less than 10% of a core over two seconds."""
        end = time.monotonic() + limit
        last = self.cpu_seconds()
        while time.monotonic() < end:
            time.sleep(2.0)
            now = self.cpu_seconds()
            if now - last < 0.2:  # less than 10% of a core over two seconds
                return
            last = now

    def __exit__(self, *exc) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, 15)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)


class Session:
    """One browser session spoken over Streamlit's websocket protocol (protobuf BackMsg/ForwardMsg)."""

    def __init__(self, port: int) -> None:
        from websockets.sync.client import connect

        self._conn = connect(
            f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"], max_size=None, open_timeout=120
        )
        self.ws = self._conn.__enter__()  # the connection is held across calls, closed by close()
        self.widgets: dict[str, object] = {}  # key -> element proto
        self.states: dict[str, object] = {}  # id -> WidgetState (what the browser would send back)
        self.auto: tuple[str, float] | None = None  # a fragment's (id, seconds) polling, as the browser runs it

    def _send(self, page: str, fragment_id: str = "") -> None:
        from streamlit.proto.BackMsg_pb2 import BackMsg

        msg = BackMsg()
        msg.rerun_script.query_string = ""
        msg.rerun_script.page_name = page
        if fragment_id:
            msg.rerun_script.fragment_id = fragment_id
            msg.rerun_script.is_auto_rerun = True
        msg.rerun_script.widget_states.widgets.extend(self.states.values())
        self.ws.send(msg.SerializeToString())

    def _wait(self, timeout: float) -> str:
        """Read messages until a script run ends: ``"full"`` or ``"fragment"``."""
        from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

        end = time.monotonic() + timeout
        polls = False
        while True:
            fm = ForwardMsg()
            fm.ParseFromString(self.ws.recv(timeout=max(1.0, end - time.monotonic())))
            kind = fm.WhichOneof("type")
            if kind == "new_session":  # every run (full or fragment) starts with one
                polls = False
            elif kind == "auto_rerun":
                self.auto, polls = (fm.auto_rerun.fragment_id, fm.auto_rerun.interval), True
            elif kind == "delta" and fm.delta.WhichOneof("type") == "add_block":
                blk = fm.delta.add_block
                if blk.WhichOneof("type") == "expandable" and "-" in blk.expandable.id:
                    self.widgets[blk.expandable.id.rsplit("-", 1)[-1]] = ("expandable", blk.expandable)
            elif kind == "delta" and fm.delta.WhichOneof("type") == "new_element":
                el = fm.delta.new_element
                inner = el.WhichOneof("type")
                proto = getattr(el, inner) if inner else None
                wid = getattr(proto, "id", "") if proto is not None else ""
                if wid and "-" in wid:
                    self.widgets[wid.rsplit("-", 1)[-1]] = (inner, proto)
            elif kind == "script_finished":
                if fm.script_finished == ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY:
                    return "fragment"
                if fm.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    if not polls:  # a full run that registered no polling fragment: the browser stops polling
                        self.auto = None
                    return "full"

    def rerun(self, page: str = "", *, timeout: float = 600.0) -> float:
        """Send a rerun with the current widget states; wait for the script's end; return the seconds taken."""
        t = time.perf_counter()
        self._send(page)
        while self._wait(timeout) != "full":
            pass
        return time.perf_counter() - t

    def follow_polling(self, page: str, *, timeout: float = 900.0) -> None:
        """Do what the browser does for ``st.fragment(run_every=...)`` until no fragment polls any more."""
        end = time.monotonic() + timeout
        while self.auto is not None and time.monotonic() < end:
            fragment_id, interval = self.auto
            time.sleep(interval)
            self._send(page, fragment_id)
            self._wait(timeout)

    def set_select_slider(self, key: str, index: int) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        _inner, proto = self.widgets[key]
        ws = WidgetState(id=proto.id)
        ws.string_array_value.data[:] = [proto.options[index % len(proto.options)]]
        self.states[proto.id] = ws

    def open_section(self, key: str) -> None:
        """Open a lazy expert section (an expander with a key), as a click on its title does."""
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        _inner, proto = self.widgets[key]
        self.states[proto.id] = WidgetState(id=proto.id, bool_value=True)

    def press(self, key: str) -> None:
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        _inner, proto = self.widgets[key]
        self.states[proto.id] = WidgetState(id=proto.id, trigger_value=True)

    def release(self, key: str) -> None:
        _inner, proto = self.widgets[key]
        self.states.pop(proto.id, None)

    def close(self) -> None:
        self._conn.__exit__(None, None, None)


def _pct(values: list[float], q: float) -> float:
    v = sorted(values)
    if not v:
        return float("nan")
    k = (len(v) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


def _one_session(port: int, changes: int, barrier, loads: list, reruns: list, errors: list) -> None:
    """One visitor: open Home, wait for the others, then move ε ``changes`` times (times appended to the lists)."""
    try:
        s = Session(port)
        loads.append(s.rerun())
        barrier.wait(timeout=600)
        start = _index(s.widgets["w_eps_slider"][1])
        for c in range(changes):
            s.set_select_slider("w_eps_slider", start + (1 if c % 2 == 0 else 0))
            reruns.append(s.rerun())
        s.close()
    except Exception as exc:  # noqa: BLE001 - reported in the table
        errors.append(repr(exc))
        try:
            barrier.abort()
        except Exception:  # noqa: BLE001
            pass


def concurrent(root: Path, counts: list[int], changes: int) -> list[dict]:
    """``n`` sessions open Home, then each moves ε ``changes`` times; server time per rerun."""
    rows = []
    with Server(root) as srv:
        srv.warm_up()  # the first visits pay the imports and start-up work: not part of the figures
        for n in counts:
            loads, reruns, errors = [], [], []
            barrier = threading.Barrier(n)

            threads = [
                threading.Thread(target=_one_session, args=(srv.port, changes, barrier, loads, reruns, errors))
                for _ in range(n)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            rows.append(
                {
                    "sessions": n,
                    "load_p50": _pct(loads, 0.5),
                    "p50": _pct(reruns, 0.5),
                    "p95": _pct(reruns, 0.95),
                    "reruns": len(reruns),
                    "errors": errors[:2],
                }
            )
            print(f"  {root.name}: {n} sessions measured", file=sys.stderr, flush=True)
    return rows


def fresh_server_visits(variants: dict[str, tuple[Path, dict]], pages: list[str], repeats: int) -> dict:
    """Per page, on the real server: the first visitor of a freshly started server opens the page directly
    (every import paid in that visit), then, once the server is idle, a new visitor opens it (what everyone
    after the first waits for). Server time from sending the request to the script's end; the median of
    ``repeats`` servers per page and variant, the variants (``label -> (checkout, environment)``) interleaved so
    that they share the machine's load."""
    raw: dict[str, dict[str, dict[str, list[float]]]] = {lab: {} for lab in variants}

    def url_name(page: str) -> str:
        return "" if page == "pages/home.py" else Path(page).stem

    for i, page in enumerate(pages):
        other = pages[(i + 1) % len(pages)]  # a page this server has not served yet
        for _ in range(repeats):
            for lab, (root, env) in variants.items():
                if not (root / page).exists():
                    continue
                with Server(root, env=env) as srv:
                    s = Session(srv.port)
                    first = s.rerun(url_name(page))
                    s.close()
                    srv.wait_idle()
                    s2 = Session(srv.port)
                    new = s2.rerun(url_name(page))
                    s2.close()
                    s3 = Session(srv.port)
                    fresh_other = s3.rerun(url_name(other)) if (root / other).exists() else float("nan")
                    s3.close()
                got = raw[lab].setdefault(page, {"first_visitor": [], "new_visitor": [], "other_page": []})
                got["first_visitor"].append(first)
                got["new_visitor"].append(new)
                got["other_page"].append(fresh_other)
        print(f"  fresh servers: {page} measured", file=sys.stderr, flush=True)
    return {
        lab: [
            {"page": page, "other": pages[(pages.index(page) + 1) % len(pages)], "runs": got}
            | {k: statistics.median(v) for k, v in got.items()}
            for page, got in by_page.items()
        ]
        for lab, by_page in raw.items()
    }


def heavy_beside_light(root: Path, changes: int) -> dict:
    """Session B's ε reruns on Home, alone and while session A runs the Large-margin sweeps."""
    out: dict = {}
    with Server(root) as srv:
        srv.warm_up()
        b = Session(srv.port)
        b.rerun()
        start = _index(b.widgets["w_eps_slider"][1])

        def light(n: int) -> list[float]:
            times = []
            for c in range(n):
                b.set_select_slider("w_eps_slider", start + (1 if c % 2 == 0 else 0))
                times.append(b.rerun())
            return times

        alone = light(changes)
        a = Session(srv.port)
        a.rerun()
        a.rerun("large_margin_gaussian")  # the default trials (100)
        a.open_section("lm_sec_sweeps")  # the sweeps live in a lazy expert section
        a.rerun("large_margin_gaussian")
        a.press("lm_run")
        box: dict = {}

        def heavy() -> None:
            t = time.perf_counter()
            box["a_run"] = a.rerun("large_margin_gaussian")
            a.release("lm_run")
            a.follow_polling("large_margin_gaussian")  # a background job: poll it like the browser until done
            box["a_done"] = time.perf_counter() - t

        th = threading.Thread(target=heavy)
        th.start()
        time.sleep(1.0)  # A's run has started
        during = []
        t_end = time.monotonic() + 600
        while th.is_alive() and len(during) < changes and time.monotonic() < t_end:
            during += light(1)
        th.join()
        a.close()
        b.close()
        out = {
            "alone_p50": _pct(alone, 0.5),
            "alone_p95": _pct(alone, 0.95),
            "during_p50": _pct(during, 0.5),
            "during_p95": _pct(during, 0.95),
            "during_n": len(during),
            "a_run": box.get("a_run", float("nan")),
            "a_done": box.get("a_done", float("nan")),
        }
    print(f"  {root.name}: heavy beside light measured", file=sys.stderr, flush=True)
    return out


def _index(proto) -> int:
    """The option index a select slider shows."""
    values = list(proto.value) if proto.set_value else list(proto.default)
    return values[0] if values else 0


# ====================================================================== tables
def _s(x: float | None) -> str:
    if x is None or x != x:
        return "—"
    return f"{x:.2f} s" if x >= 0.1 else f"{x * 1000:.0f} ms"


def _ratio(x: float, base: float) -> str:
    return "—" if not base or x != x else f"{x / base:.0f}×"


def _median_max(v: list[float], base: float) -> str:
    if not v:
        return "—"
    med = statistics.median(v)
    return f"{_s(med)} / {_s(max(v))} ({_ratio(med, base)})"


def page_table(results: dict[str, list[dict]]) -> str:
    labels = list(results)
    head = "| page | " + " | ".join(
        f"first run, cold ({lab}) | first run, warm ({lab}) | shared-widget rerun, median / max ({lab}) | "
        f"page-widget rerun, median / max ({lab}) | rerun without new computation, median / max ({lab})"
        for lab in labels
    )
    lines = [head + " |", "|---" * (1 + 5 * len(labels)) + "|"]
    pages = [r["page"] for r in results[labels[0]]]
    base_row = []
    for lab in labels:
        ok = [r for r in results[lab] if "trivial_first" in r]
        tf = statistics.median(r["trivial_first"] for r in ok) if ok else float("nan")
        tr = statistics.median(r["trivial_rerun"] for r in ok) if ok else float("nan")
        base_row += [_s(tf), "", _s(tr), "", ""]
    lines.append("| trivial page (baseline) | " + " | ".join(base_row) + " |")
    for page in pages:
        cells = []
        for lab in labels:
            r = next((x for x in results[lab] if x["page"] == page), None)
            if r is None or "failed" in r:
                cells += ["failed", "", "", "", ""]
                continue
            tf, tr = r["trivial_first"], r["trivial_rerun"]
            sh = [w["seconds"] for w in r["widgets"] if w["shared"]]
            pw = [w["seconds"] for w in r["widgets"] if not w["shared"]]
            bk = [w["back"] for w in r["widgets"] if w.get("back", float("nan")) == w.get("back")]

            cells += [
                f"{_s(r['first_cold'])} ({_ratio(r['first_cold'], tf)})",
                _s(r["first_warm"]),
                _median_max(sh, tr),
                _median_max(pw, tr),
                _median_max(bk, tr),
            ]
        name = Path(page).stem.replace("_", " ")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def widget_table(results: dict[str, list[dict]]) -> str:
    labels = list(results)
    lines = [
        "| page | widget | change | " + " | ".join(f"new value / back ({lab})" for lab in labels) + " |",
        "|---|---|---|" + "---|" * len(labels),
    ]
    first = results[labels[0]]
    for r in first:
        if "failed" in r:
            continue
        for w in r["widgets"]:
            cells = []
            for lab in labels:
                other = next((x for x in results[lab] if x["page"] == r["page"]), {})
                match = next((v for v in other.get("widgets", []) if v["key"] == w["key"]), None)
                cells.append(
                    "—"
                    if match is None
                    else f"{_s(match['seconds'])} / {_s(match.get('back'))}" + (" (error)" if match["error"] else "")
                )
            lines.append(f"| {Path(r['page']).stem} | `{w['key']}` | {w['change']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def server_table(conc: dict[str, list[dict]]) -> str:
    labels = list(conc)
    lines = [
        "| sessions | " + " | ".join(f"ε rerun p50 / p95 ({lab}) | Home load p50 ({lab})" for lab in labels) + " |",
        "|---" * (1 + 2 * len(labels)) + "|",
    ]
    for i, row in enumerate(conc[labels[0]]):
        cells = []
        for lab in labels:
            r = conc[lab][i]
            err = f" ({len(r['errors'])} errors)" if r["errors"] else ""
            cells += [f"{_s(r['p50'])} / {_s(r['p95'])}{err}", _s(r["load_p50"])]
        lines.append(f"| {row['sessions']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def heavy_table(heavy: dict[str, dict]) -> str:
    lines = [
        "| | B's ε rerun alone, p50 / p95 | B's ε rerun while A runs the sweeps, p50 / p95 "
        "| A: press to script end | A: press to every result shown |",
        "|---|---|---|---|---|",
    ]
    for lab, h in heavy.items():
        lines.append(
            f"| {lab} | {_s(h['alone_p50'])} / {_s(h['alone_p95'])} | {_s(h['during_p50'])} / "
            f"{_s(h['during_p95'])} ({h['during_n']} reruns) | {_s(h['a_run'])} | {_s(h['a_done'])} |"
        )
    return "\n".join(lines)


def fresh_table(fresh: dict[str, list[dict]]) -> str:
    labels = list(fresh)
    lines = [
        "| page | "
        + " | ".join(
            f"first visitor of a fresh server ({lab}) | new visitor, running server ({lab}) | "
            f"then the next page's first visit ({lab})"
            for lab in labels
        )
        + " |",
        "|---" * (1 + 3 * len(labels)) + "|",
    ]
    for row in fresh[labels[0]]:
        cells = []
        for lab in labels:
            r = next((x for x in fresh[lab] if x["page"] == row["page"]), None)
            cells += (
                ["—", "—", "—"]
                if r is None
                else [_s(r["first_visitor"]), _s(r["new_visitor"]), _s(r.get("other_page", float("nan")))]
            )
        lines.append(f"| {Path(row['page']).stem.replace('_', ' ')} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


START, END = "<!-- bench_pages:start -->", "<!-- bench_pages:end -->"


def write_results(out: Path, text: str) -> None:
    """Put ``text`` between the benchmark's markers in ``out`` (the rest of the file is kept)."""
    block = f"{START}\n{text}{END}"
    if out.exists() and START in (old := out.read_text()) and END in old:
        head, rest = old.split(START, 1)
        new = head + block + rest.split(END, 1)[1]
    else:
        new = (
            "# Performance\n\nServer time of the pages, measured by `benchmarks/bench_pages.py` (see its docstring "
            "for what each figure is).\n\n" + block + "\n"
        )
    out.write_text(new)
    print(f"written to {out}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="3 page widgets per page, 1 and 5 sessions, fewer reruns")
    ap.add_argument("--pages", default="", help="comma-separated page names (default: every page in ui/pages.py)")
    ap.add_argument("--before", default="", help="another checkout to measure beside this one")
    ap.add_argument("--out", default=str(HERE / "docs" / "performance.md"), help="Markdown file to write ('' = none)")
    ap.add_argument(
        "--no-server",
        action="store_true",
        help="skip the concurrent-session and heavy-run measurements on the real server",
    )
    ap.add_argument("--no-pages", action="store_true", help="skip the in-process page measurements")
    ap.add_argument("--no-fresh", action="store_true", help="skip the first visits of freshly started servers")
    ap.add_argument(
        "--warm-compare", action="store_true", help="also measure first visits with the warm-up thread switched off"
    )
    ap.add_argument("--raw", default="", help="also write the raw measurements as JSON to this file")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    ap.add_argument("--root", default="", help=argparse.SUPPRESS)
    ap.add_argument("--max-widgets", type=int, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(Path(args.root), args.child, args.max_widgets)))
        return 0

    sys.path.insert(0, str(HERE))
    from ui.pages import PAGES

    all_pages = [p for p, *_ in PAGES]
    if args.pages:
        wanted = [w.strip() for w in args.pages.split(",") if w.strip()]
        pages = [p for p in all_pages if Path(p).stem in wanted]
        unknown = set(wanted) - {Path(p).stem for p in pages}
        if unknown:
            print(f"--pages: unknown page(s) {sorted(unknown)}; pages are {[Path(p).stem for p in all_pages]}")
            return 2
    else:
        pages = all_pages
    roots = {"after": HERE}
    if args.before:
        roots = {"before": Path(args.before).resolve(), "after": HERE}
    max_widgets = 3 if args.quick else None
    counts = [1, 5] if args.quick else [1, 5, 10]
    changes = 4 if args.quick else 10

    t0 = time.perf_counter()
    load0 = os.getloadavg()[0]
    page_res = {}
    if not args.no_pages:
        page_res = {lab: [] for lab in roots}
        for page in pages:  # page by page, the checkouts one after the other: they share the machine's load
            for lab, root in roots.items():
                if (root / page).exists():
                    page_res[lab] += run_children(root, [page], max_widgets)
    raw: dict = {"pages": page_res}

    def save_raw() -> None:
        if args.raw:
            Path(args.raw).write_text(json.dumps(raw, indent=1))

    save_raw()
    conc, heavy = {}, {}
    raw.update(concurrent=conc, heavy=heavy)
    if not args.no_server:
        for lab, root in roots.items():
            conc[lab] = concurrent(root, counts, changes)
            save_raw()
        for lab, root in roots.items():
            heavy[lab] = heavy_beside_light(root, changes)
            save_raw()
    fresh: dict[str, list[dict]] = {}
    raw["fresh"] = fresh
    if not args.no_fresh:
        variants = {lab: (root, {}) for lab, root in roots.items()}
        if args.warm_compare:
            variants["after, no warm-up thread"] = (HERE, {"PUE_NO_WARM": "1"})
        fresh.update(fresh_server_visits(variants, pages, 1 if args.quick else 3))
        save_raw()
    when = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    parts = [
        f"Measured {when} with `benchmarks/bench_pages.py{' --quick' if args.quick else ''}` on a 2-core machine "
        f"shared with other work (load average {load0:.1f} at the start, {os.getloadavg()[0]:.1f} at the end); "
        + (
            "before = " + str(roots["before"]) + ", after = this checkout, side by side in one run. "
            if args.before
            else ""
        )
        + f"Total benchmark time {time.perf_counter() - t0:.0f} s."
    ]
    if page_res:
        parts += [
            "### Server time per page (in-process script runs)",
            "Cold: a fresh process (the page's imports included); warm: a second session. Ratios: to the trivial "
            "page's first run (first runs) and rerun (reruns) in the same process.",
            page_table(page_res),
            "<details><summary>Every widget</summary>\n\n" + widget_table(page_res) + "\n\n</details>",
        ]
    if fresh:
        parts += [
            "### First visits on the real server",
            "Each page in its own freshly started server: the first visitor opens it directly (the server's imports "
            "are paid in this visit), then, once the server is idle, a new visitor opens it, then another new visitor "
            "opens the next page in this list (its first visit in that server: what the warm-up thread is for). "
            f"Median of {1 if args.quick else 3} servers per page and column, the columns' servers interleaved.",
            fresh_table(fresh),
        ]
    if conc:
        parts += [
            "### Concurrent sessions on the real server (ε slider on Home)",
            server_table(conc),
            "### One heavy run beside a light session",
            "Session A presses “Run the Monte-Carlo sweeps” on the Large-margin page (100 trials) while session B "
            "moves ε on Home.",
            heavy_table(heavy),
        ]
    text = "\n\n".join(parts) + "\n"
    print(text)
    if args.out:
        write_results(Path(args.out), text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
