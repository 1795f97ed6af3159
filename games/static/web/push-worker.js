// The web client's service worker (served at /push-worker.js so its scope is the whole site):
// shows what the server pushes (docs/api.md, "Push": {v, type, game, title, body, url, tag})
// and, on a click, focuses the game's page if one is open, else opens it. A notification with
// the tag of one already shown replaces it: a retried push shows once.
self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = {};
  }
  event.waitUntil(
    self.registration.showNotification(data.title || "Bahama Taxi", {
      body: data.body || "",
      tag: data.tag || undefined,
      icon: "/favicon.ico",
      data: { url: data.url || "/" },
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(event.notification.data?.url || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url === target && "focus" in client);
      return open ? open.focus() : self.clients.openWindow(target);
    }),
  );
});
