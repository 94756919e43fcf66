import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createApi } from './api/client';
import { ApiProvider } from './api/hooks';
import { App } from './App';
import './styles.css';

const queryClient = new QueryClient({
  defaultOptions: {
    // Events keep data fresh; no polling, no refetch storms on focus.
    queries: { staleTime: Infinity, refetchOnWindowFocus: false, retry: 1 },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <ApiProvider api={createApi()}>
        <App />
      </ApiProvider>
    </QueryClientProvider>
  </StrictMode>,
);
