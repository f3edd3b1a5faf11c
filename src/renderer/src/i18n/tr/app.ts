// Uygulama kabuğu: ad, gezinme, tema ve dil seçicileri, bağlantı, durum çubuğu, kısayollar, sorunlar, birimler ve API istemcisinin hataları.
import type { MessagesOf } from '..';
import type en from '../en/app';

const app: MessagesOf<typeof en> = {
  'app.name': 'Servelab',
  'app.tagline': 'LLM servis laboratuvarı',
  'app.version': 'v{version}',
  'app.windowTitle.unsaved': '• {title}',
  'app.pageLoading': 'Sayfa yükleniyor…',
  'app.pageFailed': 'Bu sayfa gösterilemedi.',
  'app.pageRetry': 'Yeniden dene',

  'nav.label': 'Ana menü',
  'nav.hosts': 'Ana makineler',
  'nav.engines': 'Motorlar',
  'nav.studies': 'Çalışmalar',
  'nav.results': 'Sonuçlar',
  'nav.soon': 'Yakında',
  'nav.studies.upcoming': 'Daha sonra: motorlar, bayraklar ve iş yükleri genelinde bir çalışma planlayıp çalıştırın.',

  'theme.toDark': 'Koyu temaya geç',
  'theme.toLight': 'Açık temaya geç',

  'language.label': 'Dil',
  'language.name': 'Türkçe',

  'connection.ipc': 'Masaüstü uygulaması',
  'connection.websocket': 'Tarayıcı · loopback',
  'connection.lost': 'Servelab çekirdeğiyle bağlantı koptu. Yeniden bağlanılıyor…',
  'connection.status': 'Bağlantı: {status}',
  'connection.state.connecting': 'bağlanıyor',
  'connection.state.open': 'bağlı',
  'connection.state.reconnecting': 'yeniden bağlanıyor',
  'connection.state.closed': 'kapalı',
  'statusBar.label': 'Durum',
  'statusBar.unsaved': 'kaydedilmemiş değişiklikler',
  'statusBar.trials': '{total} denemeden {done} tanesi bitti',
  'statusBar.installs': 'Süren kurulumlar: {count}',
  'statusBar.prefetches': 'Süren model indirmeleri: {count}',
  'statusBar.benchmarks': 'Süren benchmark’lar: {count}',
  'shortcuts.title': 'Klavye kısayolları',
  'shortcuts.close': 'Kapat',
  'shortcuts.action': 'Eylem',
  'shortcuts.keys': 'Tuşlar',
  'shortcuts.ctrl': 'Ctrl',
  'shortcuts.shift': 'Shift',
  'shortcuts.outsideText': 'bir alana yazmıyorken',
  'shortcuts.command.newStudy': 'Yeni çalışma',
  'shortcuts.command.open': 'Bir proje aç',
  'shortcuts.command.openGuide': 'Bir ayar rehberini çalışma olarak aç',
  'shortcuts.command.save': 'Çalışma taslağını kaydet',
  'shortcuts.command.saveAs': 'Açık projeyi kopya olarak kaydet',
  'shortcuts.command.export': 'Açık projenin raporunu dışa aktar',
  'shortcuts.command.page:hosts': 'Ana makinelere git',
  'shortcuts.command.page:engines': 'Motorlara git',
  'shortcuts.command.page:studies': 'Çalışmalara git',
  'shortcuts.command.page:results': 'Sonuçlara git',
  'shortcuts.command.shortcuts': 'Klavye kısayollarını göster',
  'commands.nothingOpen': 'Önce bir proje açın: “{action}” açık proje üzerinde çalışır.',

  'notConnected.title': 'Bir Servelab çekirdeğine bağlı değil',
  'notConnected.body':
    'Bu sayfa bir Servelab çekirdeğiyle konuşur: ya masaüstü uygulamasının içindeki çekirdekle ya da çekirdeğin açılışta yazdırdığı adres üzerinden.',
  'notConnected.howTo': 'Çekirdeği başlatın ve yazdırdığı en yeni adresi açın (adres ?code=… ile biter; her biri bir sekmede oturum açar):',
  'notConnected.command': 'npx servelab serve',

  'problems.titleOne': 'Servelab, düzeltmeniz için bıraktığı bir sorun buldu',
  'problems.title': 'Servelab, düzeltmeniz için bıraktığı {count} sorun buldu',

  'units.mib': '{value} MiB',
  'units.gib': '{value} GiB',
  'units.tib': '{value} TiB',

  'api.unknownCall': 'Çekirdek {name} adlı bir çağrı sunmuyor.',
  'api.connectionDropped': 'Servelab çekirdeğiyle bağlantı, {name} çağrısı yanıtlanmadan koptu. Yeniden bağlanılıyor; tekrar deneyin.',
  'api.connectFailed': '{name} çağrısı için Servelab çekirdeğine ulaşılamadı. Hâlâ çalışıyor mu? Yeniden bağlanılıyor…',
  'api.closed': 'Servelab çekirdeğiyle bağlantı kapatıldı.',
  'api.serverStopped': 'Servelab çekirdeği durdu (servelab serve sona erdi). Yeniden başlatın ve yazdırdığı yeni adresi açın.',
  'api.sessionRevoked':
    'Bu sekmenin oturumu kapatıldı, çünkü oturum bağlantısı ikinci kez kullanıldı. Bağlantıyı iki kez açmadıysanız bu makinedeki başka biri ona sahip olabilir: servelab serve’ü durdurup yeniden başlatın.',
  'api.impostor':
    'Bu porttaki sunucu, bu sekmenin oturum açtığı Servelab çekirdeği olduğunu kanıtlayamadı; sayfa onunla konuşmayı bıraktı. servelab serve’ü başlatın ve yazdırdığı yeni adresi açın.',
  'api.signInUnreachable': 'Oturum açmak için Servelab çekirdeğine ulaşılamadı. servelab serve hâlâ çalışıyor mu?',
  'api.signInRefused': 'Servelab çekirdeği oturum açmayı reddetti (HTTP {status}). servelab serve’ün yazdırdığı en yeni adresi açın.',
};

export default app;
