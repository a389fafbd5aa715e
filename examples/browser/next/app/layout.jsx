// No favicon request (a 404 in the console otherwise).
export const metadata = { title: 'engram with Next.js', icons: { icon: 'data:,' } };

export default function RootLayout({ children }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
