// labd's pages, followed live (lab/daemon/web.c says why a long poll): wait on the JSON API's
// /v1/events from the page's last event; when something happened, fetch the page again and
// swap its live sections.  The HTML is made by the server alone; nothing here builds markup
// from data.  Without this script the pages are the same, only still.
(function () {
	"use strict";
	var live = document.getElementById("live");
	if (!live || !window.fetch || !window.DOMParser)
		return;
	var job = live.getAttribute("data-job"), last = live.getAttribute("data-last");

	function swap(html) {
		var doc = new DOMParser().parseFromString(html, "text/html");
		var fresh = doc.getElementById("live");
		document.querySelectorAll("section[data-live]").forEach(function (old) {
			var neu = doc.getElementById(old.id);
			if (neu)
				old.replaceWith(document.importNode(neu, true));
		});
		var log = document.querySelector("pre.log");
		if (log)
			log.scrollTop = log.scrollHeight;
		// A page that stopped following (a job that ended) stops here too.
		return fresh ? fresh.getAttribute("data-last") : null;
	}

	function poll() {
		var url = "/v1/events?timeout=25&limit=1&since=" + encodeURIComponent(last) +
			(job !== "0" ? "&job=" + encodeURIComponent(job) : "");
		fetch(url, { credentials: "same-origin", cache: "no-store" })
			.then(function (r) { return r.ok ? r.json() : Promise.reject(r.status); })
			.then(function (ev) {
				if (!ev.events || ev.events.length === 0) {
					last = String(ev.last > last ? ev.last : last);
					return "go";
				}
				return fetch(location.href, { credentials: "same-origin", cache: "no-store" })
					.then(function (r) { return r.text(); })
					.then(function (html) {
						var next = swap(html);
						if (next === null)
							return "stop";
						last = next;
						return "go";
					});
			})
			.then(function (what) { if (what === "go") setTimeout(poll, 250); },
			      function () { setTimeout(poll, 5000); });
	}
	poll();
})();
