/** The scheme whose links the installed app opens (`web+switchboard:sms?to=…`). */
export const PROTOCOL = 'web+switchboard';

/**
 * Makes the app installable and a deep-link handler: registers the service worker (offline
 * start) and asks the browser to send `web+switchboard:` links to `/app/link?uri=…`, where
 * the SDK's `parseDeepLink` reads them.
 */
export function registerInstallables(): void {
  if ('serviceWorker' in navigator && window.isSecureContext) {
    window.addEventListener('load', () => {
      navigator.serviceWorker.register('/app/sw.js', { scope: '/app/' }).catch((error: unknown) => {
        console.warn('Service worker not registered; the app still works online.', error);
      });
    });
  }
  try {
    navigator.registerProtocolHandler?.(PROTOCOL, '/app/link?uri=%s');
  } catch {
    // Browsers without handler support (or that refuse it here) still open /app/link URLs.
  }
}
