import { createHmac, timingSafeEqual } from "node:crypto";

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? "";
  const rec = headers as Record<string, string | string[] | undefined>;
  const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : rec[key];
  return Array.isArray(value) ? value.join(" ") : value ?? "";
}

/** The secret's key bytes: Standard Webhooks secrets are base64, optionally prefixed "whsec_". */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice("whsec_".length) : secret, "base64");
}

/**
 * verifyWebhook checks a delivery as Standard Webhooks defines it: one of the space-separated
 * "v1,<base64>" signatures is the HMAC-SHA256 of "id.timestamp.body", keyed with the
 * secret's bytes, and the timestamp is within toleranceSeconds of now (replays of old
 * deliveries fail). Pass the raw body exactly as received, not re-serialised JSON.
 */
export function verifyWebhook(
  secret: string,
  headers: WebhookHeaders,
  body: string | Uint8Array,
  options: { toleranceSeconds?: number; now?: Date } = {},
): boolean {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !/^\d+$/.test(timestamp) || !signatures) return false;
  const now = (options.now ?? new Date()).getTime() / 1000;
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) return false;
  const mac = createHmac("sha256", secretKey(secret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  const want = Buffer.from(mac.digest("base64"));
  return signatures.split(/\s+/).some((sig) => {
    const [version, value] = [sig.slice(0, 3), Buffer.from(sig.slice(3))];
    return version === "v1," && value.length === want.length && timingSafeEqual(value, want);
  });
}
