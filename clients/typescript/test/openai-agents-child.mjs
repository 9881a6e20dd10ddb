// A process running the support agent with hitl approvals, for the restart test: "start" runs
// it until the person is asked (and waits), "resume" reads the run state back from the hitl
// session and carries on. It prints one JSON line per step: {"asked": id}, then {"final", "ran"}.
import { run } from "@openai/agents";
import { HitlClient } from "@hitl/client";
import { approveInterruptions, loadRunState } from "@hitl/client/openai-agents";
import { ScriptedModel, supportAgent } from "./openai-agents-fixture.mjs";

const [mode, session, callId] = process.argv.slice(2);
const hitl = new HitlClient();
const ran = [];
const agent = supportAgent(new ScriptedModel([{ id: callId, name: "refund", arguments: { order_id: "A-7", amount: 120 } }]), ran);
const say = (line) => process.stdout.write(JSON.stringify(line) + "\n");

const options = { session, timeout_seconds: 600, onAsked: (inquiry) => say({ asked: inquiry.id }) };
const state = mode === "start" ? (await run(agent, "Refund order A-7")).state : await loadRunState(hitl, agent, session);
const decided = await approveInterruptions(hitl, state, options);
const result = await run(agent, decided);
say({ final: result.finalOutput, ran });
