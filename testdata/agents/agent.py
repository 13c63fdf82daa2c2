"""An outside agent for `detsim edge`, on Python's standard library: the
client of docs/agents.md ("<!-- client.py -->") grown into one that keeps
every oracle, and, with --bug, one planted bug the oracles must catch
from what the edge saw (docs/assertions.md, "What the edge saw").

    DETSIM_EDGE_KEY=... python3 agent.py EDGE_URL SESSION [--bug NAME]
        [--time-scale 0.01] [--tool-timeout 20] [--call-timeout 10] [--max-attempts 3]

Times are the scenario's (schedule seconds), multiplied by --time-scale.
The correct agent: retries 429/5xx and torn answers at most
--max-attempts times per turn, after retry-after; runs each tool use once
under its tool deadline and cancels it there; sends every result back;
watches the control endpoint during every call and, on a Cancel, reports
the turn cancelled, cancels its tool run and starts nothing more; on a
kill it stops, and after the restart resumes from its journal (what it
committed: the turns it finished, the response it accepted, the tools it
started), so it never asks for a committed turn again nor re-runs a tool.

Bugs (--bug), each the one the oracle after it catches:
  ignore_retry_after   retries a 429 at once                      retry_budget
  unbounded_retries    retries a failed call with no cap of its
                       own, until an answer comes                 retry_budget
  rerun_tool           runs a tool use again after it timed out
                       or failed                                  tool_run_once
  drop_result          never sends a tool result back             tool_result_returned
  restart_from_scratch after a restart asks turn 1 again and
                       re-runs its tools                          turn_not_repeated
  leak_hung_tool       stops waiting at the tool deadline but
                       never cancels the run                      tool_deadline_kept
  ignore_cancel        sees the Cancel and goes on                no_work_after_cancel
"""
import argparse, json, os, sys, threading, urllib.error, urllib.request

ap = argparse.ArgumentParser()
ap.add_argument("edge"); ap.add_argument("sid")
ap.add_argument("--bug", default="")
ap.add_argument("--time-scale", type=float, default=1.0)
ap.add_argument("--tool-timeout", type=float, default=20.0)
ap.add_argument("--call-timeout", type=float, default=10.0)
ap.add_argument("--max-attempts", type=int, default=3)
ap.add_argument("--max-output", type=int, default=16_000)
ap.add_argument("--max-turns", type=int, default=10)
ap.add_argument("--max-response", type=int, default=262_144)
a = ap.parse_args()
BUG, SCALE = a.bug, a.time_scale
base, key = f"{a.edge}/s/{a.sid}", os.environ["DETSIM_EDGE_KEY"]


def call(url, body=None, timeout=10.0, headers=None):
    """(status, JSON answer); status 0 when no whole JSON answer came."""
    h = {"content-type": "application/json", "x-api-key": key}
    h.update(headers or {})
    req = urllib.request.Request(url, None if body is None else json.dumps(body).encode(), h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            data = r.read(a.max_response + 1)  # a response past the cap is not taken
            if len(data) > a.max_response:
                return 0, {"error": {"type": "response_too_large"}}, {}
            return r.status, json.loads(data), dict(r.headers)
    except urllib.error.HTTPError as e:
        try:
            return e.code, json.load(e), dict(e.headers)
        except Exception:
            return e.code, {"error": {"type": "unreadable"}}, dict(e.headers)
    except Exception as e:
        return 0, {"error": {"type": type(e).__name__}}, {}


key = call(f"{a.edge}/sessions", {"id": a.sid})[1]["api_key"]
control_next = 0


class Stop(Exception):
    """The harness said stop: action is cancel or kill."""
    def __init__(self, action):
        self.action = action


def poll(wait=0.0):
    """The control events since the last poll; raises Stop on one that
    stops the agent (the ignore_cancel bug reads a Cancel and goes on)."""
    global control_next
    st, ans, _ = call(f"{base}/control?after={control_next}&wait={wait}", timeout=wait + 10)
    if st != 200:
        return
    control_next = ans["next"]
    for ev in ans["events"]:
        if ev["action"] == "cancel" and BUG == "ignore_cancel":
            continue
        if ev["action"] in ("cancel", "kill"):
            raise Stop(ev["action"])


def watched(fn, on_stop=None):
    """Runs fn in a thread while this one watches the control endpoint:
    the only reader of it, so nothing starts after a Cancel it was told
    of. On a stop, on_stop cancels what fn is doing."""
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("r", fn()), daemon=True)
    t.start()
    while t.is_alive():
        try:
            poll(wait=0.002)
        except Stop:
            if on_stop:
                on_stop()
            raise
        t.join(0.001)
    return box["r"]


journal = {"turns": [], "msgs": [{"role": "user", "content": "fix the build"}], "attempts": {}, "accepted": None, "started": {}}
# journal: what survives a kill (a file, for a real agent): the messages
# of committed turns, attempts per turn, the response the current turn
# accepted and the tool runs it started.


# The unbounded_retries bug has no cap; this one is only so that a test
# whose every answer fails (the edge's "script exhausted" after the last
# entry) ends: a real agent with the bug goes on for ever.
UNBOUNDED_STOP = 30


def ask(turn, msgs):
    """The model call of a turn: (message, None) or (None, reason)."""
    cap = UNBOUNDED_STOP if BUG == "unbounded_retries" else a.max_attempts
    last = "retries exhausted"
    while True:
        n = journal["attempts"].get(turn, 0)
        if n >= cap:
            return None, last
        poll()
        journal["attempts"][turn] = n + 1
        st, m, hdr = watched(lambda: call(f"{base}/v1/messages", {"model": "m", "max_tokens": 1024, "messages": msgs},
                                          timeout=max(a.call_timeout * SCALE, 0.05), headers={"x-detsim-turn": str(turn)}))
        ok = st == 200 and isinstance(m.get("content"), list) and all(
            b.get("type") != "tool_use" or isinstance(b.get("input"), dict) for b in m["content"])
        if ok and m.get("stop_reason") in (None, "end_turn", "tool_use", "stop_sequence"):
            return m, None
        last = (m.get("error") or {}).get("type", "bad_response")
        if st in (400, 401, 403, 404, 413):
            return None, last
        wait = 0.0
        if st == 429 and BUG != "ignore_retry_after":
            lower = {k.lower(): v for k, v in hdr.items()}
            if "retry-after-ms" in lower:
                wait = float(lower["retry-after-ms"]) / 1000
            elif "retry-after" in lower:
                wait = float(lower["retry-after"])
        if wait > 0:
            watched(lambda: threading.Event().wait(wait))


def run_tool(u):
    """Runs tool use u once under the tool deadline: its result."""
    deadline = a.tool_timeout * SCALE
    url = f"{base}/tools/{u['name']}"
    body = {"id": u["id"], "argv": ["echo", json.dumps(u["input"])]}
    cancel = lambda: call(f"{url}/{u['id']}/cancel", {})
    if BUG == "leak_hung_tool":
        box = {}
        t = threading.Thread(target=lambda: box.setdefault("r", call(url, body, timeout=3600)), daemon=True)
        t.start()
        t.join(deadline)  # stops waiting; the run goes on
        if t.is_alive():
            return {"status": "timed_out", "bytes": 0, "output": "[tool timed out]"}
        st, r, _ = box["r"]
    else:
        # Closing the request at the deadline cancels the run at the edge.
        st, r, _ = watched(lambda: call(url, body, timeout=deadline), on_stop=cancel)
    if st != 200:
        return {"status": "timed_out", "bytes": 0, "output": "[tool timed out]"}
    out = r.get("output")
    if out is None:
        out = f"[binary output: {r.get('bytes', 0)} bytes omitted]"
    out = out[:a.max_output]
    return {"status": r["status"], "bytes": len(out.encode()), "output": out}


def turn_once(turn):
    """One turn, resumable from the journal; False when the episode ends."""
    msgs = journal["msgs"]
    m = journal["accepted"]
    if m is None:
        m, why = ask(turn, msgs)
        if m is None:
            call(f"{base}/report", {"turn": turn, "outcome": "failed", "reason": why})
            return False
        journal["accepted"], journal["started"] = m, {}
    uses = [b for b in m["content"] if b["type"] == "tool_use"]
    results = []
    for u in uses:
        if u["id"] in journal["started"] and journal["started"][u["id"]] is None:
            # Started by a life that was killed: never run twice.
            r = {"status": "failed", "bytes": 0, "output": "[interrupted by a restart]"}
        elif u["id"] in journal["started"]:
            r = journal["started"][u["id"]]
        else:
            poll()
            journal["started"][u["id"]] = None
            r = run_tool(u)
            if BUG == "rerun_tool" and r["status"] != "ok":
                poll()
                r = run_tool(u)
            journal["started"][u["id"]] = r
        results.append(dict(r, id=u["id"]))
    poll()
    call(f"{base}/report", {"turn": turn, "outcome": "ok", "message_id": m["id"],
                            "text": "".join(b.get("text", "") for b in m["content"]), "tool_uses": uses,
                            "tool_results": [{"id": r["id"], "outcome": r["status"], "bytes": r["bytes"]} for r in results]})
    journal["msgs"] = msgs + [{"role": "assistant", "content": m["content"]}]
    if results:
        blocks = [{"type": "tool_result", "tool_use_id": r["id"], "content": r["output"]} for r in results]
        if BUG == "drop_result":
            blocks = [{"type": "text", "text": "go on"}]
        journal["msgs"].append({"role": "user", "content": blocks})
    journal["turns"].append(turn)
    journal["accepted"] = None
    return bool(uses) and turn < a.max_turns


outcome = "ok"
while True:
    try:
        turn = len(journal["turns"]) + 1
        while turn_once(turn):
            turn += 1
        break
    except Stop as s:
        if s.action == "cancel":
            call(f"{base}/report", {"turn": len(journal["turns"]) + 1, "outcome": "cancelled"})
            outcome = "cancelled"
            break
        # Killed: wait for the restart, then resume as a fresh life
        # from the journal alone.
        while True:
            st, ans, _ = call(f"{base}/control?after={control_next}&wait=5", timeout=15)
            if st != 200:
                sys.exit("control: " + str(ans))
            control_next = ans["next"]
            acts = [e["action"] for e in ans["events"]]
            if "restart" in acts:
                break
        if BUG == "restart_from_scratch":
            journal = {"turns": [], "msgs": journal["msgs"][:1], "attempts": {}, "accepted": None, "started": {}}
call(f"{base}/end", {"outcome": outcome})
