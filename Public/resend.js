// Sends a provider's cross-site POST on to the sign-in callback once more, now from the server's own origin, so that
// the browser's sign-in cookie (SameSite=Lax) goes with it. Without scripts, the page's button does the same.
(function () {
  var form = document.getElementById("resend");
  if (form) form.submit();
})();
