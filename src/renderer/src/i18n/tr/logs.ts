// Akan günlük bölmesi (LogView).
import type { MessagesOf } from '..';
import type en from '../en/logs';

const logs: MessagesOf<typeof en> = {
  'logView.count': '{count} satır',
  'logView.countOne': '1 satır',
  'logView.dropped': 'Daha önceki {count} satır atıldı',
  'logView.follow': 'İzle',
  'logView.empty': 'Henüz bir şey yok.',
  'logView.newLines': '{count} yeni satır — sona git',
  'logView.newLinesOne': '1 yeni satır — sona git',
  'logView.search': 'Ara: {title}',
  'logView.searchPlaceholder': 'Ara',
  'logView.matches': 'Eşleşen {count} satırdan {current}. satır',
  'logView.matchesOne': 'Eşleşen 1 satırdan 1. satır',
  'logView.noMatches': 'Eşleşme yok',
  'logView.previousMatch': 'Önceki eşleşme',
  'logView.previousMatchHint': 'Önceki eşleşme (Shift+Enter)',
  'logView.nextMatch': 'Sonraki eşleşme',
  'logView.nextMatchHint': 'Sonraki eşleşme (Enter)',
  'logView.onlyMatches': 'Yalnızca eşleşen satırlar',
  'logView.noMatchingLine': '“{query}” ile eşleşen satır yok.',
  'logView.copyAll': 'Tümünü kopyala',
  'logView.copyAllLabel': '“{title}” içindeki tüm satırları kopyala',
};

export default logs;
