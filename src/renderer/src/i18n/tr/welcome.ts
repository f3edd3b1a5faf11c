// Ana makineler sayfasındaki başlangıç rehberi.
import type { MessagesOf } from '..';
import type en from '../en/welcome';

const welcome: MessagesOf<typeof en> = {
  'guide.title': 'Başlarken',
  'guide.intro': 'Servelab’i denemek için GPU gerekmez: aşağıdaki demo laboratuvarı bu bilgisayarda çalışan simüle bir H100 makinesidir. Dört adımda ondan ayarlanmış bir başlatma komutuna ve bir rapora ulaşırsınız.',
  'guide.introNoDemo': 'Dört adımda bir GPU makinesinden ayarlanmış bir başlatma komutuna ve bir rapora ulaşırsınız. Önce simüle bir H100 makinesinde denemek için demo laboratuvarını geri getirin.',
  'guide.step.lab.title': 'Demo laboratuvarına bakın',
  'guide.step.lab.body': 'GPU’sunu, sürücüsünü ve araçlarını görmek için aşağıda okuyun; Servelab gerçek bir makineyi SSH üzerinden aynı şekilde okur. Sayıları simüledir ve öyle işaretlenir.',
  'guide.step.study.title': 'Örnek gecikme çalışmasını çalıştırın',
  'guide.step.study.body': 'Çalışmalar sayfasında “Qwen3-8B, tek bir H100’de en düşük gecikme” için Örnekten yeni’yi seçin, sonra Çalıştır’a basın. Motorları kurar, her seçeneği dener ve yaklaşık iki dakika sürer.',
  'guide.step.decide.title': 'Öneriyi okuyun ve karşılaştırın',
  'guide.step.decide.body': 'Öneri sekmesi tam başlatma komutunu ve her seçeneğin neden tutulduğunu ya da bırakıldığını verir. En iyi ikisini karşılaştır, onu en iyi diğer yapılandırmanın yanına her metriğin değişimiyle koyar.',
  'guide.step.share.title': 'CSV’yi ve raporu dışa aktarın',
  'guide.step.share.body': 'Rapor sekmesi raporu önizler ve Markdown ya da HTML olarak, tüm denemeleri de CSV olarak dışa aktarır.',
  'guide.openStudies': 'Örnek çalışmayı deneyin',
  'guide.hide': 'Rehberi gizle',
  'guide.show': 'Başlarken',
};

export default welcome;
