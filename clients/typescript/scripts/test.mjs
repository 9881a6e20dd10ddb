// npm test: the tests run on the compiled package (dist/, built by pretest) against a real
// hitl server. HITL_BIN names a built hitl binary; without it one is built here with
// `go build`, so that `npm ci && npm test` works on a fresh clone.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");
const root = join(pkg, "..", "..");
let built;
if (!process.env.HITL_BIN) {
  built = mkdtempSync(join(tmpdir(), "hitl-ts-bin-"));
  const bin = join(built, "hitl");
  console.log(`HITL_BIN is not set: building hitl into ${bin}`);
  execFileSync("go", ["build", "-o", bin, "./cmd/hitl"], { cwd: root, stdio: "inherit" });
  process.env.HITL_BIN = bin;
}
const files = readdirSync(join(pkg, "test")).filter((f) => f.endsWith(".test.mjs")).map((f) => join("test", f));
// One test file at a time: each starts its own server, and CI machines are small.
const run = spawnSync(process.execPath, ["--test", "--test-concurrency=1", ...files], { cwd: pkg, stdio: "inherit" });
if (built) rmSync(built, { recursive: true, force: true });
process.exit(run.status ?? 1);
