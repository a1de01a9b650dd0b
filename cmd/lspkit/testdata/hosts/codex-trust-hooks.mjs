// Trusts the project's hooks as Codex's /hooks does when its user trusts
// them: asks `codex app-server` (hooks/list) for the hooks of the working
// directory and prints, for each untrusted one, the TOML Codex writes into
// ~/.codex/config.toml: [hooks.state."KEY"] trusted_hash = "HASH".
import { appServer } from "./codex-rpc.mjs";

const timer = setTimeout(() => { console.error("codex app-server: no answer within 60 s"); process.exit(1); }, 60000);
let codex;
try {
  codex = await appServer();
  const list = await codex.call("hooks/list", { cwd: process.cwd() });
  for (const entry of list.data) {
    for (const hook of entry.hooks) {
      if (hook.trustStatus !== "trusted") console.log(`[hooks.state.${JSON.stringify(hook.key)}]\ntrusted_hash = ${JSON.stringify(hook.currentHash)}`);
    }
  }
} catch (e) {
  console.error("codex app-server:", e.message);
  process.exitCode = 1;
} finally {
  clearTimeout(timer);
  codex?.close();
}
