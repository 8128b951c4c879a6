/** The page's entry: styles, then the app in #app. */
import "./styles/main.css";

import { App } from "./app/app";

new App(document.getElementById("app") ?? document.body);
