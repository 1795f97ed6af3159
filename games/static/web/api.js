// Talking to the JSON API (/api/v1/) from a page: the session cookie plus Django's CSRF token,
// and every error as the API's {code, message, errors?} shape.
import { gettext } from "./wording.js";

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...value] = part.trim().split("=");
    if (key === name) return decodeURIComponent(value.join("="));
  }
  return "";
}

export function csrfToken() {
  const field = document.querySelector("input[name=csrfmiddlewaretoken]");
  return cookie("csrftoken") || (field ? field.value : "");
}

export class ApiFailure extends Error {
  constructor(status, body) {
    super((body && body.message) || `HTTP ${status}`);
    this.status = status;
    this.code = (body && body.code) || "http_error";
    this.errors = (body && body.errors) || {};
    this.body = body || {};
  }
}

/** fetch + JSON both ways; resolves to the body, rejects with ApiFailure. */
export async function api(url, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET") headers["X-CSRFToken"] = csrfToken();
  let response;
  try {
    response = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "same-origin",
    });
  } catch (error) {
    throw new ApiFailure(0, { code: "network", message: gettext("The server cannot be reached; check your connection.") });
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = { code: "http_error", message: `HTTP ${response.status}` };
  }
  if (!response.ok) throw new ApiFailure(response.status, data);
  return data;
}

/** A fresh idempotency key: crypto.randomUUID where the page is a secure context, else 128
 *  random bits from getRandomValues (available everywhere). */
export function newKey() {
  if (globalThis.crypto && typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Field errors next to their inputs (`<p id="<field>-error">`), the rest in `generalId`. */
export function showErrors(form, failure, generalId) {
  const general = document.getElementById(generalId);
  for (const p of form.querySelectorAll(".field-error")) p.textContent = "";
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  if (!failure) {
    general.textContent = "";
    return;
  }
  let placed = false;
  for (const [field, messages] of Object.entries(failure.errors || {})) {
    const slot = document.getElementById(`${field}-error`);
    const text = Array.isArray(messages) ? messages.join(" ") : String(messages);
    if (slot) {
      slot.textContent = text;
      const input = form.querySelector(`[name="${field}"]`);
      if (input) input.setAttribute("aria-invalid", "true");
      placed = true;
    }
  }
  general.textContent = placed ? failure.message : failure.message || String(failure);
}

/** A socket URL on this page's host: ws: for http:, wss: for https:. */
export function socketUrl(path) {
  const url = new URL(path, window.location.href);
  url.protocol = window.location.protocol === "https:" ? "wss:" : "ws:";
  return url.href;
}
