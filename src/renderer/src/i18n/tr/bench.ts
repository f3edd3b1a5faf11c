// Başlatılmış bir sunucunun benchmark paneli.
import type { MessagesOf } from '..';
import type en from '../en/bench';

const bench: MessagesOf<typeof en> = {
  'bench.title': 'Benchmark çalıştır',
  'bench.workload': 'İş yükü',
  'bench.numPrompts': 'Prompt sayısı',
  'bench.maxConcurrency': 'Azami eşzamanlılık',
  'bench.maxConcurrencyHint': 'Boş: sınır yok, tüm istekler aynı anda.',
  'bench.optional': 'isteğe bağlı',
  'bench.notAWholeNumber': 'tam sayı olmalıdır',
  'bench.willRun': 'Çalıştırılacak: {workload}',
  'bench.run': 'Benchmark çalıştır',
  'bench.startFailed': 'Benchmark başlatılamadı: {message}',
  'bench.cancel': 'İptal',
  'bench.cancelling': 'İptal ediliyor…',
  'bench.progressLabel': 'Benchmark ilerlemesi',
  'bench.starting': 'Veri kümesi ve istemci hazırlanıyor…',
  'bench.progress': '{done} / {total} istek',
  'bench.logTitle': 'Benchmark günlüğü',
  'bench.logLabel': 'Benchmark günlüğü satırları',
  'bench.succeeded': 'Benchmark tamamlandı.',
  'bench.failed': 'Benchmark başarısız oldu: {message}',
  'bench.summaryLabel': 'Benchmark sonucu',
  'bench.showInResults': 'Sonuçlar’da göster',
  'bench.metric.completed': 'Tamamlanan',
  'bench.metric.failed': 'Başarısız',
  'bench.metric.duration': 'Süre (s)',
  'bench.metric.requestThroughput': 'İstek/s',
  'bench.metric.outputThroughput': 'Çıktı tok/s',
  'bench.metric.totalThroughput': 'Toplam tok/s',
  'bench.metric.meanTtft': 'Ort. TTFT (ms)',
  'bench.metric.meanTpot': 'Ort. TPOT (ms)',
  'bench.metric.meanItl': 'Ort. ITL (ms)',
  'bench.metric.meanE2el': 'Ort. E2EL (ms)',
};

export default bench;
