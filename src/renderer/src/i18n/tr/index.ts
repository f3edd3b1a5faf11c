/**
 * Servelab arayüz metinleri, Türkçe, özellik başına bir dosya. Anahtarlar ve dosyalar `en/` ile aynıdır; `{yer tutucu}`
 * adları değiştirilmez.
 *
 * Sözlük (tutarlılık için):
 *   host → ana makine · box → makine · jump host → atlama sunucusu (ProxyJump) · server → sunucu
 *   core → çekirdek · engine → motor · study → çalışma · trial → deneme · stage → aşama · candidate → aday
 *   workload → iş yükü · dataset → veri kümesi · baseline → referans · recommendation → öneri
 *   benchmark → benchmark · latency → gecikme · throughput → verim · concurrency → eşzamanlılık
 *   request → istek · prompt → prompt · token → token · weights → ağırlıklar · cache → önbellek
 *   log → günlük · host key → ana makine anahtarı · fingerprint → parmak izi · keychain → anahtar zinciri
 *   install → kurmak · launch → başlatmak · flag → bayrak · pre-flight → ön kontrol · simulated → simüle
 *   provenance → köken bilgisi · greedy → açgözlü · grid → ızgara · Pareto front → Pareto cephesi
 *   run (of a benchmark) → çalıştırma · quantization → nicemleme · variant → varyant · checkpoint → checkpoint
 *   Slurm cluster → Slurm kümesi · login node → giriş düğümü · node → düğüm · partition → bölüm (partition)
 *   account → hesap · time limit → süre sınırı · accounting → muhasebe · scheduler → zamanlayıcı
 * Ürün, motor ve araç adları, CLI bayrakları, dosya adları, komutlar ve metrik kısaltmaları (TTFT, TPOT, ITL,
 * E2EL, P99, tok/s) çevrilmez. Yer tutucuya ek getirmek yerine ekten kaçınan yapılar seçilir
 * (ör. "Düzenle: {label}", "{name} adlı çalışma").
 */
import type { Messages } from '..';
import app from './app';
import welcome from './welcome';
import hosts from './hosts';
import prompts from './prompts';
import engines from './engines';
import logs from './logs';
import results from './results';
import bench from './bench';
import compare from './compare';
import studies from './studies';
import wizard from './wizard';

const tr: Messages = { ...app, ...welcome, ...hosts, ...prompts, ...engines, ...logs, ...results, ...bench, ...compare, ...studies, ...wizard };

export default tr;
