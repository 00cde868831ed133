// GSM 03.38 basic characters (and the extension table, which costs two septets each).
const GSM_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENDED = '^{}\\[~]|€\f';

/**
 * How many SMS parts a text takes, the way carriers count (as the server does): GSM-7 fits 160
 * characters in one part and 153 per part beyond; anything outside it goes UCS-2 at 70 / 67.
 */
export function countSegments(text: string): { segments: number; encoding: 'GSM-7' | 'UCS-2' } {
  if (text.length === 0) return { segments: 0, encoding: 'GSM-7' };
  let septets = 0;
  let gsm = true;
  for (const char of text) {
    if (GSM_BASIC.includes(char)) septets += 1;
    else if (GSM_EXTENDED.includes(char)) septets += 2;
    else {
      gsm = false;
      break;
    }
  }
  if (gsm) return { segments: septets <= 160 ? 1 : Math.ceil(septets / 153), encoding: 'GSM-7' };
  // UCS-2 counts UTF-16 code units: an emoji takes two.
  const units = text.length;
  return { segments: units <= 70 ? 1 : Math.ceil(units / 67), encoding: 'UCS-2' };
}
