// src/openapi.ts is generated from hitl's OpenAPI document (npm run generate): it must be
// regenerated whenever the document changes, or the client's types lie about the API.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { generate, generateFields } from "../scripts/generate.mjs";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");

test("src/openapi.ts is what scripts/generate.mjs makes of httpapi/openapi.json now", async () => {
  const committed = readFileSync(join(pkg, "src", "openapi.ts"), "utf8");
  assert.ok((await generate()) === committed,
    "httpapi/openapi.json changed but src/openapi.ts was not regenerated: run `npm run generate` in clients/typescript");
});

test("src/openapi-fields.ts (the inquiry request's field names, for the adapters' option checks) is current", () => {
  const committed = readFileSync(join(pkg, "src", "openapi-fields.ts"), "utf8");
  assert.ok(generateFields() === committed,
    "httpapi/openapi.json changed but src/openapi-fields.ts was not regenerated: run `npm run generate` in clients/typescript");
  const document = JSON.parse(readFileSync(join(pkg, "..", "..", "httpapi", "openapi.json"), "utf8"));
  for (const name of ["prompt", "assigned_to", "timeout_seconds", "tool_call", "allowed_decisions"]) {
    assert.ok(name in document.components.schemas.InquiryRequest.properties);
    assert.ok(committed.includes(`"${name}",`), `${name} is listed`);
  }
});

test("a request's types keep defaulted fields optional and an inquiry request typed", () => {
  const types = readFileSync(join(pkg, "src", "openapi.ts"), "utf8");
  const request = types.slice(types.indexOf("        InquiryRequest: {"));
  const body = request.slice(0, request.indexOf("\n        };") + 11);
  assert.match(body, /request_type\?:/, "request_type has a default: it must stay optional");
  assert.match(body, /\n        };$/, "the InquiryRequest type must end as an object, not widened to unknown");
});
