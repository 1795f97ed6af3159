// Sign-up and log-in: the forms post JSON to the accounts API (which is throttled and runs the
// password validators), then the login call starts the session and we go where `next` says.
import { api, showErrors } from "./api.js";

const form = document.getElementById("auth-form");
const values = () => Object.fromEntries(new FormData(form).entries());

async function submit(event) {
  event.preventDefault();
  const button = form.querySelector("button[type=submit]");
  button.disabled = true;
  showErrors(form, null, "form-error");
  const data = values();
  try {
    if (form.dataset.mode === "signup") {
      const body = { username: data.username, password: data.password };
      if (data.display_name) body.display_name = data.display_name;
      if (data.email) body.email = data.email;
      await api(form.dataset.signupUrl, { method: "POST", body });
    }
    await api(form.dataset.loginUrl, {
      method: "POST",
      body: { username: data.username, password: data.password },
    });
    window.location.assign(form.dataset.next || "/");
  } catch (failure) {
    showErrors(form, failure, "form-error");
    const invalid = form.querySelector("[aria-invalid=true]");
    if (invalid) invalid.focus();
    button.disabled = false;
  }
}

form.addEventListener("submit", submit);
