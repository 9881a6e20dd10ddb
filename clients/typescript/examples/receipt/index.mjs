// An executor that runs a tool call only on a valid decision receipt. The agent asks a person
// about a deploy; the person approves (or edits the arguments); then, as the separate process
// that runs tools would, it checks the receipt offline against the server's public keys and
// the arguments about to run, redeems it once, and shows what a changed argument and a second
// redemption get.
//
//   hitl serve                                        # in another terminal
//   node examples/receipt/index.mjs                   # asks, prints the inquiry id, waits
//   hitl respond <id> --approve                       # or --edit '{"service":"api","replicas":5}'
//
// Run it from clients/typescript (after npm ci), so that "@hitl/client" resolves. The token is
// HITL_TOKEN or the credentials file `hitl serve` wrote; the issuer to expect is the server's
// public URL (--public-url), which without one is the address it listens on: HITL_ISSUER, else
// the client's URL.
import { HitlClient, HitlError, verifyReceipt, ReceiptError } from "@hitl/client";

const hitl = new HitlClient();
const issuer = process.env.HITL_ISSUER || hitl.url;

const review = await hitl.reviewToolCall({
  prompt: "Deploy api with 3 replicas?",
  tool_call: {
    id: `deploy-${Date.now()}`,
    name: "deploy",
    arguments: { service: "api", replicas: 3 },
    parameters_schema: { type: "object", properties: { service: { type: "string" }, replicas: { type: "integer", minimum: 1, maximum: 10 } } },
  },
  allowed_decisions: ["approve", "edit", "reject"],
}, { onCreated: (inq) => console.log(`waiting for a person to decide on inquiry ${inq.id} (hitl respond ${inq.id} --approve)`) });
if (!review.run) {
  console.log(`not deploying: ${review.message ?? review.decision}`);
  process.exit(0);
}

// The executor: it trusts nothing but the receipt, the JWKS and the arguments it will run.
const receipt = review.inquiry.receipt;
const args = review.arguments;
const jwks = await hitl.jwks();
let claims;
try {
  claims = verifyReceipt(receipt, { jwks, issuer, args });
} catch (err) {
  if (!(err instanceof ReceiptError)) throw err;
  console.log(`not deploying: ${err.reason}: ${err.message}`);
  process.exit(1);
}
const who = claims.decided_by?.map((d) => d.name).join(", ");
console.log(`receipt ${claims.jti}: ${claims.decision} by ${who} for inquiry ${claims.sub}, valid until ${new Date(claims.exp * 1000).toISOString()}`);
const redeemed = await hitl.redeemReceipt(claims.jti);
console.log(`redeemed at ${redeemed.redeemed_at} by ${redeemed.redeemed_by}; deploying ${JSON.stringify(args)}`);

// What an executor refuses: arguments other than those approved, a receipt used twice.
try {
  verifyReceipt(receipt, { jwks, issuer, args: { ...args, replicas: 9 } });
} catch (err) {
  console.log(`with replicas 9 instead: ${err.reason}: ${err.message}`);
}
try {
  await hitl.redeemReceipt(claims.jti);
} catch (err) {
  if (!(err instanceof HitlError)) throw err;
  console.log(`redeemed again: ${err.status}: ${err.detail}`);
}
