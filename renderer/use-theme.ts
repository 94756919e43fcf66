import { useEffect } from 'react';
import { useOp } from './api/hooks';

/** Applies the saved theme; "system" follows the OS and its changes. */
export function useTheme(): void {
  const settings = useOp('settings.get', {});
  const theme = settings.data?.theme ?? 'system';
  useEffect(() => {
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    const apply = () => {
      document.documentElement.dataset.theme = theme === 'system' ? (media.matches ? 'dark' : 'light') : theme;
    };
    apply();
    media.addEventListener('change', apply);
    return () => media.removeEventListener('change', apply);
  }, [theme]);
}
