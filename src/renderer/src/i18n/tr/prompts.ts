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
};

export default prompts;
