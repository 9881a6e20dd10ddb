import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Environment variables, as process.env holds them (a plain type: no @types/node needed to use the client). */
export type Environment = Record<string, string | undefined>;

/** The credentials file `hitl serve` writes: the server's URL and the first admin token. */
export interface Credentials {
  url?: string;
  token?: string;
}

/**
 * credentialsPath is where the hitl CLI keeps its credentials file: HITL_CREDENTIALS, else
 * $XDG_CONFIG_HOME/hitl/credentials.json, else ~/.config/hitl/credentials.json (Go's
 * os.UserConfigDir on Linux, which the CLI uses).
 */
export function credentialsPath(env: Environment = process.env): string {
  if (env.HITL_CREDENTIALS) return env.HITL_CREDENTIALS;
  const config = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(config, "hitl", "credentials.json");
}

/** loadCredentials reads the file; a missing file gives {}, as the CLI treats it. */
export function loadCredentials(env: Environment = process.env): Credentials {
  const path = credentialsPath(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw err;
  }
  try {
    const parsed = JSON.parse(text) as Credentials;
    return { url: parsed.url, token: parsed.token };
  } catch (err) {
    throw new Error(`${path} is not a hitl credentials file: ${(err as Error).message}`);
  }
}
