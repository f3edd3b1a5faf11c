import { useMemo, useState } from 'react';
import type { ResultEntry } from '../../../../shared/results/result-entry';
import { Icon } from '../../components/Icon';
import { Modal } from '../../components/Modal';
import { t } from '../../i18n';
import { entryColumn } from './compare-model';
import { CompareView } from './CompareView';
import { resultTitle } from '../results/result-title';

/** "Compare selected" for the results library: imported and measured entries side by side, in a dialog. */
export function CompareSelected({ entries }: { entries: readonly ResultEntry[] }) {
  const [open, setOpen] = useState<readonly ResultEntry[] | null>(null);
  const columns = useMemo(() => (open ?? []).map((entry) => entryColumn(entry, resultTitle(entry))), [open]);
  return (
    <>
      <button type="button" className="btn btn-secondary" disabled={entries.length < 2} onClick={() => setOpen(entries)}>
        <Icon name="chart" size={14} />
        {t('compare.results.button', { count: entries.length })}
      </button>
      {open && (
        <Modal
          title={t('compare.results.title')}
          size="wide"
          onClose={() => setOpen(null)}
          footer={
            <button type="button" className="btn btn-secondary" onClick={() => setOpen(null)}>
              {t('compare.results.close')}
            </button>
          }
        >
          {/* The dialog's title names the comparison: no second heading under it. */}
          <CompareView columns={columns} title={null} />
        </Modal>
      )}
    </>
  );
}
