/* b */
int fake_b(int x);

int fake_b(int x)
{
	return x + 1;
}
