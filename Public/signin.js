// Hands the sign-in's outcome to the page that opened the sign-in window, as CloudKit JS waits for it, then closes:
// `{ckSession, ckWebAuthToken}` once signed in (CloudKit JS 1.x and 2.x read `ckSession`; Apple's Web Services
// reference tells other pages to read `ckWebAuthToken`), `{errorMessage}` when the sign-in was cancelled or could not
// go on (CloudKit JS rejects `whenUserSignsIn()` with SIGN_IN_FAILED). It is posted to the opener's origin only,
// which the server checked against the API tokens' allowed origins before it made this page.
(function () {
  var el = document.getElementById("signed-in") || document.getElementById("sign-in-ended");
  if (!el || !window.opener) return;
  var token = el.getAttribute("data-ck-web-auth-token");
  var message = token ? { ckSession: token, ckWebAuthToken: token } : { errorMessage: el.getAttribute("data-error-message") };
  window.opener.postMessage(message, el.getAttribute("data-origin"));
  window.close();
})();
