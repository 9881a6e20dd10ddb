// FileSaver: LangGraph's MemorySaver whose checkpoints are kept in a JSON file, so that a
// graph interrupted in one process resumes in another. A small stand-in for a real durable
// checkpointer (@langchain/langgraph-checkpoint-postgres, -sqlite, ...): one process at a time.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { MemorySaver } from "@langchain/langgraph";

/** The checkpoints hold bytes (Uint8Array): JSON keeps them as { $bytes: base64 }. */
function replacer(_key, value) {
  return value instanceof Uint8Array ? { $bytes: Buffer.from(value).toString("base64") } : value;
}

function reviver(_key, value) {
  return value !== null && typeof value === "object" && typeof value.$bytes === "string"
    ? new Uint8Array(Buffer.from(value.$bytes, "base64"))
    : value;
}

export class FileSaver extends MemorySaver {
  constructor(path) {
    super();
    this.path = path;
    if (existsSync(path)) {
      const saved = JSON.parse(readFileSync(path, "utf8"), reviver);
      this.storage = saved.storage;
      this.writes = saved.writes;
    }
  }

  /** save writes the whole store to a new file and renames it over the old one. */
  save() {
    const tmp = `${this.path}.tmp`;
    writeFileSync(tmp, JSON.stringify({ storage: this.storage, writes: this.writes }, replacer));
    renameSync(tmp, this.path);
  }

  async put(config, checkpoint, metadata) {
    const next = await super.put(config, checkpoint, metadata);
    this.save();
    return next;
  }

  async putWrites(config, writes, taskId, taskPath) {
    await super.putWrites(config, writes, taskId, taskPath);
    this.save();
  }

  async deleteThread(threadId) {
    await super.deleteThread(threadId);
    this.save();
  }
}
