// An outside agent for `detsim edge` on the official TypeScript SDKs: the
// client of docs/agents.md ("<!-- client.mts -->"), which keeps every
// oracle, and, with a bug named after the time scale, one planted bug
// that lives in how the agent uses its SDK, which the oracle after it
// must catch from what the edge saw (docs/assertions.md, "What the edge
// saw"; edge TestPlantedAgents_TypeScript):
//
//   sdk_retries         leaves the SDK's maxRetries at its default (2):
//                       the SDK's retries inside the agent's 3 attempts,
//                       up to 9 requests in a turn of 3              retry_budget
//   ignore_retry_after  retries a 429 at once, not after the
//                       retry-after-ms the error carries             retry_budget
//
//   DETSIM_EDGE_KEY=... npx tsx agent.mts EDGE_URL SESSION anthropic|openai TIME_SCALE [BUG]
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { setTimeout as sleep } from "node:timers/promises";
const [edge, sid, api, scale, bug = ""] = process.argv.slice(2); // http://127.0.0.1:8788 s1 anthropic|openai 0.01 (the edge's --time-scale); $DETSIM_EDGE_KEY: the edge's key
const ms = Number(scale) * 1000, MAX_RESPONSE = 256 << 10, MAX_OUTPUT = 16 << 10; // a schedule second in ms; the scenario's agent bounds
const { api_key } = await (await fetch(`${edge}/sessions`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": process.env.DETSIM_EDGE_KEY! }, body: JSON.stringify({ id: sid }) })).json();
const base = `${edge}/s/${sid}`, headers = { "content-type": "application/json", "x-api-key": api_key };
const post = (p: string, b: object, signal = AbortSignal.timeout(10_000)) => fetch(base + p, { method: "POST", headers, body: JSON.stringify(b), signal }).then((r) => r.json());
const checked = async (url: any, init?: any) => { // the SDKs' fetch: refuses an answer over MAX_RESPONSE bytes, and a torn stream
  const r = await fetch(url, init), dec = new TextDecoder(); let n = 0, sse = "";
  return new Response(r.body?.pipeThrough(new TransformStream({
    transform(c, out) { sse += dec.decode(c, { stream: true }); (n += c.length) > MAX_RESPONSE ? out.error(new Error("too_large")) : out.enqueue(c); },
    flush() { if (r.headers.get("content-type")?.startsWith("text/event-stream")) whole(sse); } })), r);
};
function whole(sse: string) { // the Anthropic SDK skips an event without data and mends a tool use's torn input: refuse both
  const args: string[] = [];
  for (const ev of sse.split("\n\n").filter((e) => e.trim())) {
    const d = JSON.parse(ev.split("\n").find((l) => l.startsWith("data:"))?.slice(5) ?? "missing data");
    if (d.delta?.type === "input_json_delta") args[d.index] = (args[d.index] ?? "") + d.delta.partial_json;
  }
  args.forEach((a) => a && JSON.parse(a));
}
const opts = { apiKey: api_key, fetch: checked, ...(bug === "sdk_retries" ? {} : { maxRetries: 0 }) }; // retries are ours (ask): the SDK's inside them would make up to 9 requests in a turn of 3 (retry_budget)
const ant = new Anthropic({ ...opts, baseURL: base }), oai = new OpenAI({ ...opts, baseURL: `${base}/v1` }), msgs: any[] = [{ role: "user", content: "fix the build" }];
class Cancelled extends Error {}
const cancel = new AbortController(); // aborted once a Cancel is reported: what was under way ends
let seen = 0, down = 0, over = false, wake = () => {}, turn = 1, reports = Promise.resolve(), settled: Promise<void> | null = null; // control events read; kills not restarted yet
const report = (b: object) => { if (settled) throw new Cancelled(); return (reports = reports.then(() => post("/report", b))); }; // in order, none after a Cancel's
(async () => { // the harness's events, long-polled all episode (after=seen): a Cancel is reported the moment it comes, then the work aborted
  try { while (!over && !settled) {
    const ans = await (await fetch(`${base}/control?after=${seen}&wait=10`, { headers })).json(); seen = ans.next ?? seen;
    for (const e of ans.events ?? []) if (e.action !== "cancel") down += e.action === "kill" ? 1 : -1; else if (!over) settled ??= report({ turn, outcome: "cancelled" }).finally(() => cancel.abort(new Cancelled()));
    wake();
  } } catch { over = true; wake(); } // the edge is gone: what runs fails on its own
})();
async function ready() { while (!settled && down > 0 && !over) await new Promise<void>((ok) => (wake = ok)); if (settled) throw new Cancelled(); } // between steps: a Cancel throws, a kill pauses us until the restart
async function watched<T>(work: (signal: AbortSignal) => Promise<T>, deadline: number): Promise<T> { // work until its deadline, or a Cancel
  await ready(); const ac = new AbortController(), timer = setTimeout(() => ac.abort(new Error("deadline")), deadline), stop = () => ac.abort(cancel.signal.reason); // (AbortSignal.any of a timeout can lose it in node 20)
  cancel.signal.addEventListener("abort", stop);
  try { return await Promise.race([work(ac.signal), new Promise<T>((_, no) => ac.signal.addEventListener("abort", () => no(ac.signal.reason)))]); } // an SDK stream cut mid-body may never settle
  finally { clearTimeout(timer); cancel.signal.removeEventListener("abort", stop); }
}
async function ask(): Promise<[any, string]> { // a turn's model call: [{id, text, uses, reply}, ""] or [null, why]; at most 3 attempts (max_attempts)
  let why = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return [await watched(async (signal) => {
        if (api === "openai") { const c = await oai.chat.completions.create({ model: "m", messages: msgs }, { signal }), m = c.choices[0].message; if (!["stop", "tool_calls"].includes(c.choices[0].finish_reason)) throw new Error("torn");
          return { id: c.id, text: m.content ?? "", uses: (m.tool_calls ?? []).map((t: any) => ({ id: t.id, name: t.function.name, input: JSON.parse(t.function.arguments) })), reply: m }; }
        const m = await ant.messages.stream({ model: "m", max_tokens: 1024, messages: msgs }, { signal }).finalMessage(); if (!["end_turn", "tool_use"].includes(m.stop_reason!)) throw new Error("torn"); // the SDK does not notice a cut stream
        return { id: m.id, text: m.content.map((b: any) => b.text ?? "").join(""), uses: m.content.filter((b) => b.type === "tool_use"), reply: { role: "assistant", content: m.content } };
      }, 10 * ms), ""];
    } catch (e: any) {
      if (settled) throw new Cancelled();
      why = String(e?.message ?? e).slice(0, 80);
      if ([400, 401, 403, 404, 413].includes(e.status)) break; // the same request would fail the same way
      const wait = bug === "ignore_retry_after" ? 0 : Number(e.headers?.get("retry-after-ms") ?? 0) || Number(e.headers?.get("retry-after") ?? 0) * 1000; // scaled by the edge
      await watched((signal) => sleep(wait, null, { signal }), wait + 1000);
    }
  }
  return [null, why];
}
async function run(u: any) { // tool use u, once: aborting the request at the tool deadline or on a Cancel cancels the run at the edge
  const r = await watched((signal) => post(`/tools/${u.name}`, { id: u.id, argv: ["echo", JSON.stringify(u.input)] }, signal), 20 * ms).catch((e) => { if (settled) throw new Cancelled(); return { status: "timed_out" }; });
  const out = Buffer.from(r.output ?? (r.output_base64 ? `[${r.bytes} bytes of binary output]` : `[${r.status ?? "refused"}]`)).subarray(0, MAX_OUTPUT).toString(); // capped
  return { id: u.id, outcome: r.status ?? "failed", bytes: Buffer.byteLength(out), output: out };
}
let outcome = "ok";
try {
  while (turn <= 10) {
    const [m, why] = await ask();
    if (!m) { report({ turn, outcome: "failed", reason: why }); break; }
    const res = []; for (const u of m.uses) res.push(await run(u)); await ready();
    report({ turn: turn++, outcome: "ok", message_id: m.id, text: m.text, tool_uses: m.uses, tool_results: res.map(({ id, outcome, bytes }) => ({ id, outcome, bytes })) });
    if (!m.uses.length) break;
    msgs.push(m.reply, ...(api === "openai" ? res.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.output })) : [{ role: "user", content: res.map((r) => ({ type: "tool_result", tool_use_id: r.id, content: r.output })) }]));
  }
} catch (e) { if (!(e instanceof Cancelled)) throw e; outcome = "cancelled"; }
over = true; await reports; await post("/end", { outcome });
