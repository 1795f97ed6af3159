// On every page: a browser's push subscription lives with the session it was registered in
// (accounts/push.py), so after a new login the browser tells the server about it again, once
// a session. Signed out (no <meta name="push-subscriptions">), the mark is cleared for the
// next login. The profile page's switch (push-settings.js) turns the subscription on and off.
import { api } from "./api.js";

const MARK = "taxi-push-renewed";
const target = document.querySelector('meta[name="push-subscriptions"]');

async function renew() {
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) return;
  const registration = await navigator.serviceWorker.getRegistration("/");
  const subscription = registration && (await registration.pushManager.getSubscription());
  if (!subscription || sessionStorage.getItem(MARK) === subscription.endpoint) return;
  await api(target.content, { method: "POST", body: subscription.toJSON() });
  sessionStorage.setItem(MARK, subscription.endpoint);
}

if (!target) {
  sessionStorage.removeItem(MARK);
} else {
  // a page that cannot renew still works: the next page tries again
  renew().catch(() => {});
}
