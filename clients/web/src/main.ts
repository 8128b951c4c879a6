/** The page's entry: styles, then the players' app in #app, or at `/admin` the operator's
 *  admin page, loaded on demand (its own chunk: players never download it). */
import "./styles/main.css";

import { App } from "./app/app";
import { isAdminPath } from "./app/router";

const root = document.getElementById("app") ?? document.body;
if (isAdminPath(window.location.pathname)) {
  import("./app/admin")
    .then(({ startAdmin }) => startAdmin(root))
    .catch((error: unknown) => {
      root.textContent = `The admin page failed to load: ${error instanceof Error ? error.message : String(error)}. Reload to try again.`;
    });
} else new App(root);
