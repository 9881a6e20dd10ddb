// The TypeScript client's side of `hitl bench`'s wake latency comparison: it asks WAITERS
// questions with ask() (MODE=ask: each waits with its own long polls) or ask({ waiter })
// (MODE=waiter: one Waiter's shared POST /v1/inquiries/wait streams), prints
//   {"ids": [...]}                           once every question is asked,
// and, once every ask() has returned,
//   {"returned_unix_ms": {"<id>": <ms>}}     when each returned (Unix time, µs precision).
// hitl bench parks them, answers them one by one with the Go client it answers Go's waits
// with, and takes each latency from the answer being sent to that ask() returning. It needs
// the client built (npm ci, or npm run build) and runs as:
//   HITL_URL=... HITL_TOKEN=<an agent's key> WAITERS=1000 MODE=ask node bench/wake.mjs
import { performance } from "node:perf_hooks";
import { HitlClient } from "../dist/index.js";

const waiters = Number(process.env.WAITERS);
const mode = process.env.MODE;
if (!process.env.HITL_URL || !process.env.HITL_TOKEN || !(waiters > 0) || !["ask", "waiter"].includes(mode)) {
  console.error("bench/wake.mjs needs HITL_URL, HITL_TOKEN (an agent's key), WAITERS > 0 and MODE ask or waiter");
  process.exit(2);
}
const agent = new HitlClient({ url: process.env.HITL_URL, token: process.env.HITL_TOKEN });
const waiter = mode === "waiter" ? agent.waiter() : undefined;
const now = () => performance.timeOrigin + performance.now();

const returned = {};
const ids = [];
const asks = [];
// Asked a few dozen at a time, as an agent process running many tasks would.
for (let i = 0; i < waiters; i += 50) {
  const batch = [];
  for (let j = i; j < Math.min(i + 50, waiters); j++) {
    batch.push(new Promise((created, failed) => {
      asks.push(agent.ask({ prompt: `TypeScript ${mode} #${j}?` }, { waiter, pollSeconds: 120, onCreated: (q) => created(q.id) })
        .then((q) => { returned[q.id] = now(); }, failed));
    }));
  }
  ids.push(...(await Promise.all(batch)));
}
console.log(JSON.stringify({ ids }));
await Promise.all(asks);
waiter?.close();
console.log(JSON.stringify({ returned_unix_ms: returned }));
