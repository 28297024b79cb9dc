import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
// Before App: the stylesheets a feature imports come after it in the bundle, so they build on it.
import './styles.css';
import { App } from './app/App';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
