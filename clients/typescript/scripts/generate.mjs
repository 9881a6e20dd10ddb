// npm run generate: src/openapi.ts, the API's types, made from hitl's OpenAPI document by
// openapi-typescript. Two choices make the types usable for requests:
//   - a field with a default stays optional (the server fills it in), and a schema with no
//     properties (a JSON Schema the caller gives, say) is unknown, not an empty object;
//   - an anyOf whose members only list required fields (InquiryRequest: "prompt or
//     template") is a rule TypeScript cannot say plainly: openapi-typescript would turn the
//     whole type into unknown, so the rule is left to the server, which explains it in a 422.
// With --check it writes nothing and fails when src/openapi.ts is not what it would write.
import openapiTS, { astToString } from "openapi-typescript";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const documentPath = join(pkg, "..", "..", "httpapi", "openapi.json");
const outPath = join(pkg, "src", "openapi.ts");

function onlyRequired(schema) {
  return Object.keys(schema).every((k) => k === "required");
}

function dropRequiredOnlyAnyOf(node) {
  if (Array.isArray(node)) return node.forEach(dropRequiredOnlyAnyOf);
  if (node === null || typeof node !== "object") return;
  if (Array.isArray(node.anyOf) && node.properties && node.anyOf.every(onlyRequired)) delete node.anyOf;
  Object.values(node).forEach(dropRequiredOnlyAnyOf);
}

export async function generate() {
  const document = JSON.parse(readFileSync(documentPath, "utf8"));
  dropRequiredOnlyAnyOf(document);
  const ast = await openapiTS(document, { defaultNonNullable: false, emptyObjectsUnknown: true });
  return "/**\n * Generated from httpapi/openapi.json by scripts/generate.mjs (npm run generate).\n * Do not edit: change the document and regenerate.\n */\n\n" + astToString(ast);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await generate();
  if (process.argv.includes("--check")) {
    if (readFileSync(outPath, "utf8") !== text) {
      console.error("httpapi/openapi.json changed but src/openapi.ts was not regenerated: run `npm run generate` in clients/typescript");
      process.exit(1);
    }
  } else {
    writeFileSync(outPath, text);
  }
}
