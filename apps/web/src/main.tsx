import "./app/strip-direct-login.ts";
import "./i18n/index.ts";
import "./shared/ui/styles.css";
import "./app/layout/layout.css";
import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App.tsx";

const container = document.getElementById("root");
if (container) {
  createRoot(container).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
