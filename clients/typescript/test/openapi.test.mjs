// src/openapi.ts is generated from hitl's OpenAPI document (npm run generate): it must be
// regenerated whenever the document changes, or the client's types lie about the API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");

test("src/openapi.ts is what openapi-typescript makes of httpapi/openapi.json now", () => {
  const dir = mkdtempSync(join(tmpdir(), "hitl-ts-openapi-"));
  try {
    const fresh = join(dir, "openapi.ts");
    execFileSync(join(pkg, "node_modules", ".bin", "openapi-typescript"), [join(pkg, "..", "..", "httpapi", "openapi.json"), "-o", fresh], { stdio: "ignore" });
    const committed = readFileSync(join(pkg, "src", "openapi.ts"), "utf8");
    assert.ok(readFileSync(fresh, "utf8") === committed,
      "httpapi/openapi.json changed but src/openapi.ts was not regenerated: run `npm run generate` in clients/typescript");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
