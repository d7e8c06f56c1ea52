// Hands the web auth token to the page that opened the sign-in window, as CloudKit JS expects, then closes.
// It is posted to the opener's origin only (checked by the server against the API tokens' allowed origins).
(function () {
  var el = document.getElementById("signed-in");
  if (!el || !window.opener) return;
  window.opener.postMessage({ ckWebAuthToken: el.getAttribute("data-ck-web-auth-token") }, el.getAttribute("data-origin"));
  window.close();
})();
