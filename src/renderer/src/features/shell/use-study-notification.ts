import { useEffect } from 'react';
import { t } from '../../i18n';
import { useAppStore } from '../../store';

/**
 * In a browser, a study's end is also a system notification while the page is not in front, but only if the user
 * already allowed this page to notify: the app never asks. (The desktop app's main process notifies instead; its
 * pages are refused every permission.)
 */
export function useStudyNotification(): void {
  const notice = useAppStore((s) => s.studyNotice);
  useEffect(() => {
    if (!notice || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    if (document.hasFocus()) return;
    const notification = new Notification(t(`studies.notice.${notice.status}`, { name: notice.name }), notice.message && notice.status !== 'done' ? { body: notice.message } : {});
    notification.onclick = () => window.focus();
  }, [notice]);
}
