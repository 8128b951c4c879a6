/**
 * A busy lobby for the e2e tests: rooms made by tests/e2e/make_rooms.py (the Python client
 * library, one guest who stays in them), listed until `close()`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { URL } from "./helpers";

const ROOT = resolve(import.meta.dirname, "../../../..");

export interface BusyLobby {
  rooms: string[];
  close(): Promise<void>;
}

/** `count` waiting Flip Over Frog rooms in the lobby of the server at `ws` (the suite's by
 *  default), made by `name`. */
export async function busyLobby(count: number, name = "Busy Host", ws = `${URL().replace(/^http/, "ws")}/ws`): Promise<BusyLobby> {
  const python = join(ROOT, ".venv", "bin", "python");
  const child: ChildProcess = spawn(python, [join(import.meta.dirname, "make_rooms.py"), ws, String(count), name], { cwd: ROOT, stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let errors = "";
  child.stderr?.on("data", (chunk) => (errors += chunk));
  const rooms = await new Promise<string[]>((done, fail) => {
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      if (output.includes("\n")) done(JSON.parse(output.split("\n")[0]!) as string[]);
    });
    child.once("exit", (code) => fail(new Error(`make_rooms.py exited with ${code}: ${errors}`)));
  });
  return {
    rooms,
    close: () =>
      new Promise((done) => {
        if (child.exitCode !== null) return done();
        child.once("exit", () => done());
        child.stdin?.end();
      }),
  };
}
