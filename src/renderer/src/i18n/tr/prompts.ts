// Çekirdeğin kullanıcıya sorduğu sorular (parolalar, parola ifadeleri, klavyeyle etkileşimli istemler).
import type { MessagesOf } from '..';
import type en from '../en/prompts';

const prompts: MessagesOf<typeof en> = {
  'prompt.cancel': 'İptal',
  'prompt.submit.passphrase': 'Anahtarın kilidini aç',
  'prompt.submit.password': 'Oturum aç',
  'prompt.submit.keyboard-interactive': 'Devam et',
  'prompt.answer': 'Yanıt {index}',
  'prompt.remember': 'İşletim sisteminin anahtar zincirinde hatırla',
  'prompt.rememberHint': 'Servelab bundan sonra, yeniden başlatmanın ardından da, sormadan bunu kullanır.',
  'prompt.expiresIn': 'Servelab bir yanıt için {time} daha bekler',
  'prompt.expired': 'Bu sorunun süresi doldu.',
  'prompt.queuedOne': 'Bekleyen 1 soru daha var',
  'prompt.queued': 'Bekleyen {count} soru daha var',
  'prompt.failed': 'Yanıt alınamadı: {message}',
  'prompt.passphrase.title': '{key} anahtarının parolası',
  'prompt.passphrase.message': '{login} makinesinde oturum açmak için {key} anahtarının parolasını girin.',
  'prompt.passphrase.retry': 'Parola yanlıştı; yeniden deneyin ({attempt} / {tries}).',
  'prompt.passphrase.field': 'Anahtar parolası:',
  'prompt.password.title': '{address} için parola',
  'prompt.password.message': '{login} makinesindeki {user} kullanıcısının parolasını girin.',
  'prompt.password.retry': 'Parola yanlıştı; yeniden deneyin ({attempt} / {tries}).',
  'prompt.password.retrySaved': 'Parola yanlıştı; yeniden deneyin.',
  'prompt.password.field': 'Parola:',
};

export default prompts;
