// The profile form: saves through the accounts API, then reloads so a new language shows at once.
import { api, showErrors } from "./api.js";
import { gettext } from "./wording.js";

const form = document.getElementById("profile-form");

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const button = document.getElementById("profile-save");
  const data = new FormData(form);
  button.disabled = true;
  showErrors(form, null, "form-error");
  const body = {
    email: String(data.get("email") || "").trim(),
    email_on_turn: data.get("email_on_turn") === "on",
    language: String(data.get("language") || ""),
  };
  const displayName = String(data.get("display_name") || "").trim();
  if (displayName) body.display_name = displayName;
  try {
    await api(form.dataset.api, { method: "PATCH", body });
    document.getElementById("profile-status").textContent = gettext("Saved.");
    window.location.reload();
  } catch (failure) {
    showErrors(form, failure, "form-error");
    button.disabled = false;
  }
});
