import { useEffect } from 'react';
import { useOp } from './api/hooks';
import { ConnectionBanner } from './components/ConnectionBanner';
import { useInvocationProgressFeed } from './components/InvocationProgress';
import { Sidebar } from './components/Sidebar';
import { hashChangeHeld } from './components/UnsavedChanges';
import { ChatScreen } from './features/chat/ChatScreen';
import { InspectScreen } from './features/inspect/InspectScreen';
import { McpApprovalPrompt } from './features/mcp-server/McpApprovalPrompt';
import { McpQuestionPrompt } from './features/mcp-server/McpQuestionPrompt';
import { SettingsScreen } from './features/settings/SettingsScreen';
import { ToolsScreen } from './features/tools/ToolsScreen';
import { t } from './i18n/strings';
import { SCREENS, useUi } from './stores/ui';
import { useTheme } from './use-theme';

export function App() {
  const screen = useUi((s) => s.screen);
  const info = useOp('app.info', {});
  useTheme();
  useScreenShortcuts();
  // Every running call's progress is followed from the start, so a card that appears late still has its latest report.
  useInvocationProgressFeed();

  // Readiness marker for tests and automation: set once the core has answered.
  useEffect(() => {
    if (info.data) document.documentElement.dataset.ready = 'true';
  }, [info.data]);

  return (
    <div className="app" data-testid="app-shell">
      {/* Moves the focus only: the address names the screen, and #main is none (it would switch screens). */}
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        {t.app.skipToContent}
      </a>
      <Sidebar />
      <main id="main" tabIndex={-1} className="main">
        <ConnectionBanner />
        <McpApprovalPrompt />
        <McpQuestionPrompt />
        {screen === 'chat' && <ChatScreen />}
        {screen === 'tools' && <ToolsScreen />}
        {screen === 'inspect' && <InspectScreen />}
        {screen === 'settings' && <SettingsScreen />}
      </main>
    </div>
  );
}

/** Alt+1…4 (browsers keep Ctrl+digit for tabs) and Ctrl/Cmd+1…4 (desktop) switch screens. */
function useScreenShortcuts() {
  const { go, syncFromHash } = useUi();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.altKey || e.ctrlKey || e.metaKey) || e.shiftKey) return;
      const n = Number(e.key);
      const target = SCREENS[n - 1];
      if (Number.isInteger(n) && target) {
        e.preventDefault();
        go(target);
        document.getElementById('main')?.focus();
      }
    };
    // The back button: unsaved changes may hold it back (they put the address back and ask).
    const onHash = (e: HashChangeEvent) => {
      if (!hashChangeHeld(e)) syncFromHash();
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('hashchange', onHash);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('hashchange', onHash);
    };
  }, [go, syncFromHash]);
}
