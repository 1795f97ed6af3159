// The profile page's notifications: this browser's push subscription (on or off) and what is
// pushed to all of the user's devices, through the accounts API (docs/api.md, "Push").
import { api, showErrors } from "./api.js";
import { gettext } from "./wording.js";

const section = document.getElementById("push-settings");
const status = document.getElementById("push-status");
const toggle = document.getElementById("push-toggle");
const preferences = document.getElementById("push-preferences");
const supported = "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

function base64UrlBytes(text) {
  const padded = (text + "=".repeat((4 - (text.length % 4)) % 4)).replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
}

async function currentSubscription() {
  const registration = await navigator.serviceWorker.getRegistration("/");
  return registration ? registration.pushManager.getSubscription() : null;
}

function show(subscribed) {
  toggle.dataset.on = subscribed ? "1" : "";
  toggle.textContent = subscribed
    ? gettext("Turn off notifications on this device")
    : gettext("Turn on notifications on this device");
  status.textContent = subscribed
    ? gettext("Notifications are on for this device.")
    : gettext("Notifications are off for this device.");
}

async function turnOn() {
  if ((await Notification.requestPermission()) !== "granted") {
    status.textContent = gettext("Notifications are blocked for this site in the browser's settings.");
    return;
  }
  const registration = await navigator.serviceWorker.register(section.dataset.worker, { scope: "/" });
  await navigator.serviceWorker.ready;
  const { public_key: key } = await api(section.dataset.key);
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: base64UrlBytes(key),
  });
  await api(section.dataset.subscriptions, {
    method: "POST",
    body: { ...subscription.toJSON(), device: navigator.userAgent.slice(0, 100) },
  });
  show(true);
}

async function turnOff() {
  const subscription = await currentSubscription();
  if (subscription) {
    const mine = await api(section.dataset.subscriptions);
    const known = mine.find((item) => item.endpoint === subscription.endpoint);
    if (known) await api(`${section.dataset.subscriptions}/${known.id}`, { method: "DELETE" });
    await subscription.unsubscribe();
  }
  show(false);
}

async function start() {
  const saved = await api(section.dataset.preferences);
  for (const input of preferences.querySelectorAll("input[type=checkbox]")) {
    input.checked = Boolean(saved[input.name]);
    input.addEventListener("change", async () => {
      showErrors(section, null, "push-error");
      try {
        await api(section.dataset.preferences, { method: "PATCH", body: { [input.name]: input.checked } });
        status.textContent = gettext("Saved.");
      } catch (failure) {
        input.checked = !input.checked;
        showErrors(section, failure, "push-error");
      }
    });
  }
  if (!supported) {
    toggle.hidden = true;
    status.textContent = gettext("This browser cannot show notifications.");
  } else {
    const subscription = await currentSubscription();
    if (subscription) {
      // renew it: this session may be new (a login), and the subscription lives with it
      await api(section.dataset.subscriptions, { method: "POST", body: subscription.toJSON() });
    }
    show(Boolean(subscription));
    toggle.addEventListener("click", async () => {
      toggle.disabled = true;
      showErrors(section, null, "push-error");
      try {
        await (toggle.dataset.on ? turnOff() : turnOn());
      } catch (failure) {
        showErrors(section, failure, "push-error");
      } finally {
        toggle.disabled = false;
      }
    });
  }
  section.hidden = false;
}

start().catch((failure) => showErrors(section, failure, "push-error"));
